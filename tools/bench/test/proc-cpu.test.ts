// /proc/<pid>/stat parsing: the command name may hold spaces and parentheses, and the CPU fields
// are counted from the last ')'.
import { spawn } from 'node:child_process';
import { cpuDelta, cpuTimes, parseStat } from '../src/lib/proc-cpu.js';

test('parseStat reads utime, stime, cutime and cstime after a command name with spaces and parentheses', () => {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
  const stat = '4242 (my (odd) node) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 1200 300 20 0 11 0';
  expect(parseStat(stat, 100)).toEqual({ selfMs: 3000, childrenMs: 15000 });
  expect(parseStat(stat, 1000)).toEqual({ selfMs: 300, childrenMs: 1500 });
  expect(() => parseStat('4242 (x) S 1 2', 100)).toThrow(/unreadable/);
});

const linux = process.platform === 'linux' ? test : test.skip;

linux('a reaped child busy for a while shows in childrenMs, not selfMs', async () => {
  // selfMs is checked against the process's own clock, not against the child's: a jest worker on a
  // loaded CI machine may spend any amount of CPU of its own meanwhile (GC, an earlier file's leftovers).
  const ownBefore = process.cpuUsage();
  const before = (await cpuTimes())!;
  await new Promise<void>((resolve, reject) => {
    // 600 ms of CPU in a child process (counted by its own clock, whatever the machine's load), then exit.
    const child = spawn(process.execPath, ['-e', 'while (process.cpuUsage().user < 600_000);']);
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
  const used = cpuDelta(before, (await cpuTimes())!);
  const own = process.cpuUsage(ownBefore);
  const ownMs = (own.user + own.system) / 1000;
  expect(used.childrenMs).toBeGreaterThanOrEqual(590);
  // The two clocks of our own CPU differ by their 10 ms ticks and by what runs between their
  // readings (up to ~100 ms on a loaded CI machine); the child's 600 ms in selfMs would not fit.
  expect(used.selfMs - ownMs).toBeLessThan(300);
});
