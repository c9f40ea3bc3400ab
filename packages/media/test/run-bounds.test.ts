// Bounds watched during a run: the memory cap's sizing, the disk watch's decisions, and both
// watches against real files and a real process.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Errors } from '@media/platform';
import { defaultRunMemoryBytes, judgeDisk, machineMemoryBytes, MIN_RUN_MEMORY_BYTES, watchDisk, watchMemory } from '../src/ffmpeg/index.js';

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
