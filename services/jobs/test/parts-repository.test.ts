// The split parts store: claims in order and once, other workers' claims in fair order and never
// the owner's own parts, leases that lapse put parts back (then fail them), a removed run stops
// its encoders' renewals.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDocStore, type DocStore } from '@media/docstore';
import type { TaskPlan } from '@media/media';
import { openPartsRepository } from '../src/adapters/parts-repository.js';
import type { PartsRepository } from '../src/domain/ports.js';
import { partId, type PartDoc } from '../src/domain/split-parts/part-doc.js';

let dir: string;
let store: DocStore;
let repo: PartsRepository;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-parts-repo-'));
  store = await openDocStore({ database: 'jobs', dataDir: dir });
  repo = await openPartsRepository(store);
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

let seq = 0;
/** A run of `count` parts owned by `ownerId`, for `accountId`, created `agoMs` ago. */
async function run(ownerId: string, accountId: string, count: number, agoMs = 0, frames: number[] = [], shared = true): Promise<string> {
  const runId = `r_test${seq++}`;
  const createdAt = new Date(Date.now() - agoMs);
  const docs = Array.from(
    { length: count },
    (_, index): PartDoc => ({
      _id: partId(runId, index),
      runId,
      jobId: `job_${runId}`,
      accountId,
      index,
      frames: frames[index] ?? 250,
      ownerId,
      status: 'pending',
      shared,
      geometry: {
        part: { startSec: index * 10, endSec: index * 10 + 10, frames: 250 },
        index,
        last: index === count - 1,
        inputStartSec: 0,
      },
      plan: { inputs: [], outputs: [] } as unknown as TaskPlan,
      inputBlobs: [],
      splitInput: 0,
      deadline: new Date(Date.now() + 3_600_000),
      workerId: null,
      leaseUntil: null,
      attempts: 0,
      outTimeSec: 0,
      error: null,
      createdAt,
      updatedAt: createdAt,
    }),
  );
  await repo.insert(docs);
  return runId;
}
const lease = () => new Date(Date.now() + 60_000);

afterEach(async () => {
  // Every test starts with no pending part of another test.
  for (const doc of await store.collection<PartDoc>('parts').find({})) await repo.deleteRun(doc.runId);
});

test("the owner claims its run's parts in order, each once", async () => {
  const runId = await run('w_owner', 'acc_a', 3);
  const got = [];
  for (let i = 0; i < 4; i++) got.push((await repo.claimOwn(runId, 'w_owner', lease()))?.index ?? null);
  expect(got).toEqual([0, 1, 2, null]);
});

test('the longest parts are claimed first, by the owner and by others', async () => {
  const own = await run('w_owner', 'acc_a', 4, 0, [250, 500, 350, 500]);
  const got = [];
  for (let i = 0; i < 4; i++) got.push((await repo.claimOwn(own, 'w_owner', lease()))?.index);
  expect(got).toEqual([1, 3, 2, 0]);
  const other = await run('w_owner', 'acc_a', 3, 0, [300, 400, 350]);
  expect((await repo.claimOther('w_b', lease(), async () => new Map()))?.index).toBe(1);
  expect(await repo.ofRun(other)).toHaveLength(3);
});

test("another worker never claims the owner's parts; it claims the others' in fair order", async () => {
  await run('w_other', 'acc_busy', 2, 5000); // older, but its account is busier
  const fresh = await run('w_third', 'acc_idle', 1);
  const own = await run('w_me', 'acc_idle', 1, 10_000);
  const load = async () => new Map([['acc_busy', 2]]);
  const first = await repo.claimOther('w_me', lease(), load);
  expect(first?.runId).toBe(fresh);
  const next = await repo.claimOther('w_me', lease(), load);
  expect(next?.accountId).toBe('acc_busy');
  expect(next?.index).toBe(0);
  await repo.claimOther('w_me', lease(), load);
  expect(await repo.claimOther('w_me', lease(), load)).toBeNull(); // only its own run's part is left
  expect((await repo.ofRun(own)).map((p) => p.status)).toEqual(['pending']);
});

test('a lapsed lease puts the part back, then fails it after the last start', async () => {
  const runId = await run('w_owner', 'acc_a', 1);
  const id = partId(runId, 0);
  const past = new Date(Date.now() - 1000);
  expect(await repo.claimOther('w_gone', past, async () => new Map())).not.toBeNull();
  expect(await repo.reclaimExpired(id, new Date(), 2, { kind: 'internal', message: 'lost' })).toMatchObject({
    status: 'pending',
    attempts: 1,
  });
  expect(await repo.claimOther('w_gone2', past, async () => new Map())).toMatchObject({ attempts: 2 });
  expect(await repo.reclaimExpired(id, new Date(), 2, { kind: 'internal', message: 'lost' })).toMatchObject({
    status: 'failed',
    error: { kind: 'internal', message: 'lost' },
  });
});

test('a part in time is not reclaimed; heartbeat and finish need the holder', async () => {
  const runId = await run('w_owner', 'acc_a', 1);
  const id = partId(runId, 0);
  await repo.claimOther('w_b', lease(), async () => new Map());
  expect(await repo.reclaimExpired(id, new Date(), 3, { kind: 'internal', message: 'lost' })).toBeNull();
  expect(await repo.heartbeat(id, 'w_c', lease(), 3)).toBe(false);
  expect(await repo.heartbeat(id, 'w_b', lease(), 3)).toBe(true);
  expect(await repo.finish(id, 'w_c', { status: 'done' })).toBe(false);
  expect(await repo.finish(id, 'w_b', { status: 'done' })).toBe(true);
  expect((await repo.ofRun(runId))[0]).toMatchObject({ status: 'done', outTimeSec: 3 });
});

test('a released part is pending again (not a start when uncounted); a removed run ends renewals', async () => {
  const runId = await run('w_owner', 'acc_a', 1);
  const id = partId(runId, 0);
  await repo.claimOther('w_b', lease(), async () => new Map());
  expect(await repo.processingByAccount()).toEqual(new Map([['acc_a', 1]]));
  expect(await repo.release(id, 'w_b', { uncounted: true })).toBe(true);
  expect((await repo.ofRun(runId))[0]).toMatchObject({ status: 'pending', attempts: 0, workerId: null });
  await repo.claimOther('w_b', lease(), async () => new Map());
  expect(await repo.deleteRun(runId)).toBe(1);
  expect(await repo.heartbeat(id, 'w_b', lease(), 1)).toBe(false);
});

test('deleteJob removes every run of the job', async () => {
  const runId = await run('w_owner', 'acc_a', 2);
  expect(await repo.deleteJob(`job_${runId}`)).toBe(2);
  expect(await repo.ofRun(runId)).toEqual([]);
});

test("one account's long backlog does not hide another account's parts", async () => {
  // 250 parts of a busy account, older, then 2 of an idle one: a claim of another worker takes the idle one's.
  await run('w_a', 'acc_backlog', 250, 10_000);
  const idle = await run('w_b', 'acc_quiet', 2);
  const load = async () => new Map([['acc_backlog', 3]]);
  expect((await repo.claimOther('w_c', lease(), load))?.runId).toBe(idle);
  expect((await repo.claimOther('w_c', lease(), load))?.runId).toBe(idle);
  expect((await repo.claimOther('w_c', lease(), load))?.accountId).toBe('acc_backlog');
});

test("a run with URL inputs, or a part given back, is its own worker's only", async () => {
  const unshared = await run('w_owner', 'acc_a', 1, 0, [], false);
  expect(await repo.claimOther('w_b', lease(), async () => new Map())).toBeNull();
  expect((await repo.claimOwn(unshared, 'w_owner', lease()))?.index).toBe(0);
  const runId = await run('w_owner', 'acc_a', 1);
  const id = partId(runId, 0);
  await repo.claimOther('w_b', lease(), async () => new Map());
  expect(await repo.release(id, 'w_b', { ownerOnly: true })).toBe(true);
  expect(await repo.claimOther('w_c', lease(), async () => new Map())).toBeNull();
  expect((await repo.claimOwn(runId, 'w_owner', lease()))?._id).toBe(id);
  // Done, but its file cannot be fetched: pending again, for the owner.
  await repo.finish(id, 'w_owner', { status: 'done' });
  expect(await repo.redo(id)).toBe(true);
  expect((await repo.ofRun(runId))[0]).toMatchObject({ status: 'pending', shared: false });
});

test("a dead worker's runs of a job are removed, not another worker's; runs past their time limit are listed", async () => {
  const dead = await run('w_dead', 'acc_a', 1);
  const jobId = `job_${dead}`;
  const live = `r_live${seq++}`;
  await repo.insert([{ ...(await repo.ofRun(dead))[0]!, _id: partId(live, 0), runId: live, ownerId: 'w_live' }]);
  expect(await repo.runsOf(jobId, 'w_dead')).toEqual([dead]);
  expect(await repo.deleteJob(jobId, 'w_dead')).toBe(1);
  expect(await repo.ofRun(live)).toHaveLength(1);
  expect(await repo.expiredRuns(new Date())).toEqual([]);
  expect(await repo.expiredRuns(new Date(Date.now() + 7_200_000))).toEqual([{ runId: live, jobId }]);
});
