// A worker looking for pending jobs holds no ffmpeg slot while it looks: with a slow store and
// nothing queued, a sync request arriving meanwhile must find the slot free (it answered 503
// "Too busy" in CI's networked run, under load, while the worker's scan was only asking).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { openEmbeddedDocStore, type DocStore } from '@media/docstore';
import { createLogger } from '@media/platform';
import { waitFor } from '@media/testkit';
import { openJobsRepository } from '../src/adapters/repository.js';
import type { JobsRepository } from '../src/domain/ports.js';
import { openDispatch } from '../src/domain/dispatch.js';
import type { ProcessDeps } from '../src/domain/process.js';
import { Slots } from '../src/domain/slots.js';
import { startWorker } from '../src/domain/worker.js';

let dir: string;
let bus: EventBus;
let store: DocStore;
let repo: JobsRepository;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-looking-'));
  bus = await connectEventBus({});
  store = await openEmbeddedDocStore({ dataDir: dir, database: 'jobs' });
  repo = await openJobsRepository(store);
});
afterAll(async () => {
  await store.close();
  await bus.close();
  await rm(dir, { recursive: true, force: true });
});

test('no slot is taken while the worker asks a slow store for work and there is none', async () => {
  // Each call for work is held until the test lets it go: the worker is asking meanwhile.
  const asking: (() => void)[] = [];
  let letAll = false;
  const slow =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    async (...a: A) => {
      if (!letAll) await new Promise<void>((r) => asking.push(r));
      return f(...a);
    };
  const slowRepo = Object.create(repo) as JobsRepository;
  slowRepo.pendingFair = slow(repo.pendingFair);
  slowRepo.claim = slow(repo.claim);
  const slots = new Slots(1);
  const deps = { repo: slowRepo, slots, bus, logger: createLogger('jobs-test', 'silent') } as unknown as ProcessDeps;
  const worker = startWorker(
    deps,
    await openDispatch(bus),
    { leaseMs: 30_000, scanIntervalMs: 50, maxAttempts: 3, stageAhead: 0 },
    async () => undefined,
  );
  const inUseWhileAsking: number[] = [];
  try {
    for (let round = 0; round < 5; round++) {
      worker.wake();
      await waitFor('the worker asking the store for work', () => asking.length > 0);
      inUseWhileAsking.push(slots.inUse);
      asking.shift()!();
    }
  } finally {
    letAll = true;
    for (const go of asking.splice(0)) go();
    await worker.stop();
  }
  expect(inUseWhileAsking).toEqual([0, 0, 0, 0, 0]);
});
