// JOB_MEMORY_LIMIT_MB: a run's memory cap as set, off at 0, or sized from the machine and the slots.
import { defaultRunMemoryBytes } from '@media/media';
import { runMemoryLimitBytes } from '../src/config.js';

test('the cap is the setting in MiB, none at 0, and the machine share of one slot when unset', () => {
  expect(runMemoryLimitBytes({ JOB_MEMORY_LIMIT_MB: 200, WORKER_CONCURRENCY: 2 })).toBe(200 * 1024 * 1024);
  expect(runMemoryLimitBytes({ JOB_MEMORY_LIMIT_MB: 0, WORKER_CONCURRENCY: 2 })).toBeUndefined();
  expect(runMemoryLimitBytes({ JOB_MEMORY_LIMIT_MB: undefined, WORKER_CONCURRENCY: 4 })).toBe(defaultRunMemoryBytes(4));
});
