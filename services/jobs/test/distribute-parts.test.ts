// The job's side of parts spread over the workers (split-parts/distribute.ts), on the real parts
// store with a stand-in for Storage and for ffmpeg: a part another worker encoded is fetched into
// place; a part that failed there fails the run with its error and stops the parts encoding here;
// a part whose worker died is encoded here; every record and stored part is removed at the end.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDocStore, type DocStore } from '@media/docstore';
import type { Part, SplitContext, TaskPlan } from '@media/media';
import { DomainError, createLogger } from '@media/platform';
import { waitFor } from '@media/testkit';
import { openPartsRepository } from '../src/adapters/parts-repository.js';
import type { PartsRepository } from '../src/domain/ports.js';
import { distributeParts, type DistributeDeps } from '../src/domain/split-parts/distribute.js';

let dir: string;
let store: DocStore;
let parts: PartsRepository;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'distribute-parts-'));
  store = await openDocStore({ database: 'jobs', dataDir: dir });
  parts = await openPartsRepository(store);
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const PARTS: Part[] = [0, 1, 2, 3].map((i) => ({ startSec: i * 2, endSec: i * 2 + 2, frames: 50 }));

/** Storage's part RPCs as Jobs calls them: a stored part's bytes, and the removals asked for. */
function fakeStorage() {
  const deleted: { jobId: string; runId?: string | undefined }[] = [];
  const client = {
    getPart: async function* (req: { part: { index: number } }) {
      yield { chunk: Buffer.from(`encoded elsewhere ${req.part.index}`) };
    },
    deleteParts: async (req: { jobId: string; runId?: string }) => {
      deleted.push({ jobId: req.jobId, runId: req.runId });
      return { deleted: 0 };
    },
  };
  return { client: client as unknown as DistributeDeps['storage'], deleted };
}

/** One slot, as a worker with WORKER_CONCURRENCY=1 gives the job's parts. */
function oneSlot() {
  let chain = Promise.resolve() as Promise<unknown>;
  return <T>(work: () => Promise<T>): Promise<T> => {
    const next = chain.then(work);
    chain = next.catch(() => undefined);
    return next;
  };
}

let jobSeq = 0;
function setup(encodeHere: (i: number, signal: AbortSignal) => Promise<void>) {
  const jobId = `job_dist${jobSeq++}`;
  const storage = fakeStorage();
  const stop = new AbortController();
  const out = join(dir, jobId);
  const ctx: SplitContext = {
    parts: PARTS,
    inputStartSec: 0,
    encode: async (i) => {
      await encodeHere(i, stop.signal);
      await mkdir(out, { recursive: true });
      await writeFile(join(out, `p${i}`), `encoded here ${i}`);
      return { durationMs: 1, outputs: [] };
    },
    partFile: (i) => join(out, `p${i}`),
    progress: () => {},
    started: () => {},
    signal: stop.signal,
    abort: (reason) => stop.abort(reason),
  };
  const run = distributeParts(
    {
      parts,
      storage: storage.client,
      logger: createLogger('test', 'silent'),
      offer: async () => {},
      leaseMs: 1000,
      maxAttempts: 3,
      pollMs: 20,
    },
    {
      jobId,
      accountId: 'acc_d',
      workerId: 'w_owner',
      plan: { inputs: [] } as unknown as TaskPlan,
      inputBlobs: [],
      splitInput: 0,
      deadline: Date.now() + 60_000,
      schedule: oneSlot(),
    },
  );
  return { jobId, ctx, run: () => run(ctx), storage, stop, out };
}

const records = (jobId: string) => store.collection('parts').find({ jobId });

/** Another worker's claim, once the owner holds part 0 in its one slot (so the claim gets a later part). */
async function claimAsOther(jobId: string, workerId: string, leaseUntil: Date) {
  await waitFor(
    'the owner encoding part 0',
    async () => (await store.collection('parts').findOne({ jobId, index: 0, workerId: 'w_owner' })) !== null,
  );
  const doc = await parts.claimOther(workerId, leaseUntil, async () => new Map());
  if (!doc) throw new Error('no part to claim');
  return doc;
}

test('a part another worker encoded is fetched into place; nothing is left', async () => {
  let remoteDone!: () => void;
  const remoteFinished = new Promise<void>((r) => (remoteDone = r));
  const s = setup(async (i) => {
    if (i === 0) await remoteFinished; // the first part here waits until the other worker is done
  });
  const running = s.run();
  const doc = await claimAsOther(s.jobId, 'w_remote', new Date(Date.now() + 60_000));
  expect(doc.index).toBe(1); // part 0 is the owner's, in its slot
  expect(await parts.finish(doc._id, 'w_remote', { status: 'done' })).toBe(true);
  remoteDone();
  await running;
  expect(await readFile(join(s.out, 'p1'), 'utf8')).toBe('encoded elsewhere 1');
  for (const i of [0, 2, 3]) expect(await readFile(join(s.out, `p${i}`), 'utf8')).toBe(`encoded here ${i}`);
  expect(await records(s.jobId)).toEqual([]);
  expect(s.storage.deleted).toEqual([
    { jobId: s.jobId, runId: undefined },
    { jobId: s.jobId, runId: doc.runId },
  ]);
});

test('a part recorded failed (its workers died too often) fails the run with its error and stops the part encoding here', async () => {
  let localStopped = false;
  const s = setup(
    (i, signal) =>
      new Promise<void>((resolve, reject) => {
        if (i !== 0) return resolve();
        signal.addEventListener('abort', () => {
          localStopped = true;
          reject(signal.reason);
        });
      }),
  );
  const running = s.run();
  const doc = await claimAsOther(s.jobId, 'w_remote', new Date(Date.now() + 60_000));
  await parts.finish(doc._id, 'w_remote', { status: 'failed', error: { kind: 'bad_request', message: 'The task failed in part 1.' } });
  const err = await running.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DomainError);
  expect(err).toMatchObject({ kind: 'bad_request', message: 'The task failed in part 1.' });
  expect(localStopped).toBe(true);
  expect(await records(s.jobId)).toEqual([]);
});

test('a part whose worker died (its lease lapsed) is encoded here', async () => {
  let claimed!: () => void;
  const remoteClaimed = new Promise<void>((r) => (claimed = r));
  const encodedHere: number[] = [];
  const s = setup(async (i) => {
    if (i === 0) await remoteClaimed;
    encodedHere.push(i);
  });
  const running = s.run();
  // Claimed with a lease that has already lapsed, and never renewed: its worker is gone.
  const doc = await claimAsOther(s.jobId, 'w_dead', new Date(Date.now() - 1));
  claimed();
  await running;
  expect(encodedHere.sort()).toEqual([0, 1, 2, 3]);
  expect(await readFile(join(s.out, `p${doc.index}`), 'utf8')).toBe(`encoded here ${doc.index}`);
  expect(await records(s.jobId)).toEqual([]);
});

test('a part another worker gave back (it could not stage or encode it) is encoded here', async () => {
  let gaveBack!: () => void;
  const given = new Promise<void>((r) => (gaveBack = r));
  const encodedHere: number[] = [];
  const s = setup(async (i) => {
    if (i === 0) await given;
    encodedHere.push(i);
  });
  const running = s.run();
  const doc = await claimAsOther(s.jobId, 'w_remote', new Date(Date.now() + 60_000));
  expect(await parts.release(doc._id, 'w_remote', { ownerOnly: true })).toBe(true);
  gaveBack();
  await running;
  expect(encodedHere.sort()).toEqual([0, 1, 2, 3]);
  expect(await records(s.jobId)).toEqual([]);
});
