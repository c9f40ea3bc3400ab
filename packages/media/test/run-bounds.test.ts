// Bounds watched during a run: the memory cap's sizing, the disk watch's decisions, both watches
// against real files and a real process, and the cgroup v2 files the cap writes where delegated.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Errors } from '@media/platform';
import { defaultRunMemoryBytes, judgeDisk, machineMemoryBytes, MIN_RUN_MEMORY_BYTES, watchDisk, watchMemory } from '../src/ffmpeg/index.js';
import { delegate, joinRunCgroup, ownMemoryCgroup } from '../src/ffmpeg/memory-cgroup.js';
import { fileSizeCap } from '../src/ffmpeg/run-bounds.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

describe('memory cap sizing', () => {
  it('takes the container limit when it is below the machine, and ignores an unlimited one', () => {
    expect(machineMemoryBytes(16 * GiB, 4 * GiB)).toBe(4 * GiB);
    expect(machineMemoryBytes(16 * GiB, 2 ** 64)).toBe(16 * GiB); // cgroup v1 "no limit"
    expect(machineMemoryBytes(16 * GiB, 0)).toBe(16 * GiB);
  });

  it('keeps a quarter (at least 512 MiB) for the service and divides the rest among the slots', () => {
    expect(defaultRunMemoryBytes(2, 16 * GiB)).toBe(6 * GiB);
    expect(defaultRunMemoryBytes(4, 4 * GiB)).toBe(768 * MiB);
    expect(defaultRunMemoryBytes(2, 1 * GiB)).toBe(MIN_RUN_MEMORY_BYTES); // 512 MiB left, 256 each
    expect(defaultRunMemoryBytes(16, 2 * GiB)).toBe(MIN_RUN_MEMORY_BYTES); // never below the floor
  });
});

describe('disk watch decisions', () => {
  const look = { share: 100 * MiB, written: 0, ownRate: 0, headroom: 500 * MiB, diskRate: 0, aheadMs: 250 };

  it('stops a run whose outputs will pass its share by the next look', () => {
    expect(judgeDisk({ ...look, written: 80 * MiB, ownRate: (40 * MiB) / 250 })).toEqual(Errors.diskShareExceeded(100 * MiB));
    expect(judgeDisk({ ...look, written: 50 * MiB, ownRate: (40 * MiB) / 250 })).toBeUndefined();
  });

  it('stops a writing run when the disk will cross the reserve by the next look, whoever fills it', () => {
    const filling = { ...look, written: 10 * MiB, ownRate: 1, headroom: 30 * MiB, diskRate: (40 * MiB) / 250 };
    expect(judgeDisk(filling)).toEqual(Errors.diskFull());
    // A run that writes nothing more is left to finish.
    expect(judgeDisk({ ...filling, ownRate: 0 })).toBeUndefined();
  });
});

describe('watches', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'run-bounds-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** The first violation a watch reports, or 'none' after 10 s. */
  const firstViolation = (start: (report: (err: Error) => void) => { stop(): unknown }) =>
    new Promise<Error | 'none'>((resolve) => {
      const timer = setTimeout(() => {
        void watch.stop();
        resolve('none');
      }, 10_000);
      const watch = start((err) => {
        clearTimeout(timer);
        void watch.stop();
        resolve(err);
      });
    });

  it('a run writing past its share of the headroom (headroom / runs) is reported with its share', async () => {
    let headroom = 10 * MiB;
    const seen = firstViolation((report) => {
      const watch = watchDisk(dir, { headroom: async () => headroom, runs: 2, intervalMs: 20 }, report);
      // After the first look: 6 MiB written, over the 5 MiB share, the disk still 4 MiB above the reserve.
      setTimeout(() => {
        void writeFile(join(dir, 'out.bin'), Buffer.alloc(6 * MiB)).then(() => (headroom -= 6 * MiB));
      }, 100);
      return watch;
    });
    expect(await seen).toEqual(Errors.diskShareExceeded(5 * MiB));
  });

  it('a run that starts with no headroom left is the service shortage (503)', async () => {
    expect(await firstViolation((report) => watchDisk(dir, { headroom: async () => -1, runs: 2, intervalMs: 20 }, report))).toEqual(
      Errors.diskFull(),
    );
  });

  it('a process past the cap of resident memory is reported with the cap', async () => {
    // 300 MiB, touched (Buffer.alloc fills it), held until killed.
    const child = spawn(process.execPath, ['-e', 'globalThis.b = Buffer.alloc(300 * 1024 * 1024, 1); setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    try {
      expect(await firstViolation((report) => watchMemory(child.pid!, 150 * MiB, report, 20))).toEqual(
        Errors.memoryLimitExceeded(150 * MiB),
      );
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('memory cap in a delegated cgroup v2 (the files as the kernel shows them, in a temp dir)', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'run-cgroup-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('is used only where this process has a cgroup v2 with the memory controller', async () => {
    const v1 = join(root, 'v1'); // a cgroup v1 mount: no cgroup.controllers
    const v2 = join(root, 'v2');
    await mkdir(join(v2, 'svc'), { recursive: true });
    await writeFile(join(v2, 'svc', 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    expect(await ownMemoryCgroup('0::/svc\n', [v1, v2])).toBe(join(v2, 'svc'));
    // A hybrid host: a v2 tree without controllers (they are v1's), or no v2 line at all.
    await writeFile(join(v2, 'svc', 'cgroup.controllers'), '\n');
    expect(await ownMemoryCgroup('0::/svc\n', [v1, v2])).toBeUndefined();
    expect(await ownMemoryCgroup('4:memory:/svc\n', [v1, v2])).toBeUndefined();
  });

  it('moves this cgroup processes to a leaf, enables memory for children, and caps a run in its own child', async () => {
    await writeFile(join(root, 'cgroup.subtree_control'), '');
    await writeFile(join(root, 'cgroup.procs'), '4242\n');
    await delegate(root);
    expect(await readFile(join(root, 'service', 'cgroup.procs'), 'utf8')).toBe('4242');
    expect(await readFile(join(root, 'cgroup.subtree_control'), 'utf8')).toBe('+memory');

    const run = await joinRunCgroup(root, 777, 200 * MiB);
    expect(await readFile(join(root, 'run-777', 'memory.max'), 'utf8')).toBe(String(200 * MiB));
    expect(await readFile(join(root, 'run-777', 'cgroup.procs'), 'utf8')).toBe('777');
    expect(await run.oomKilled()).toBe(false);
    await writeFile(join(root, 'run-777', 'memory.events'), 'low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n');
    expect(await run.oomKilled()).toBe(true);
  });
});

describe('the file size cap (RLIMIT_FSIZE) from the disk share', () => {
  it('gives each output an equal part of the share, never more than the spec limit', () => {
    const spec = 5 * 10 ** 9;
    expect(fileSizeCap(spec, undefined, 3)).toBe(spec); // no reserve watched
    expect(fileSizeCap(spec, 100 * GiB, 2)).toBe(spec); // a roomy disk: the spec's limit
    expect(fileSizeCap(spec, 300 * MiB, 10)).toBe(30 * MiB); // ten copies share the run's share
    expect(fileSizeCap(spec, 300 * MiB, 0)).toBe(300 * MiB); // a report alone: one part
    expect(fileSizeCap(spec, 0, 1)).toBe(1); // never 0 (unlimited to prlimit); the run answers 503 first
  });
});
