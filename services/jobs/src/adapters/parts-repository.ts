// The split parts store (domain/split-parts/part-doc.ts): one record per part of a split job's
// run, claimed atomically with a lease like jobs, by the run's own worker or any other replica;
// a run's longest parts first (the parts that end last are then short, and the workers end together).
import type { DocStore } from '@media/docstore';
import type { PartsRepository } from '../domain/ports.js';
import type { PartDoc } from '../domain/split-parts/part-doc.js';

/** Claims lost to another worker before a claim gives up until the next pump. */
const CLAIM_TRIES = 5;

/** The fields of a part back in the queue. */
const pendingAgain = () => ({ status: 'pending', workerId: null, leaseUntil: null, outTimeSec: 0, updatedAt: new Date() });

export async function openPartsRepository(store: DocStore): Promise<PartsRepository> {
  const parts = store.collection<PartDoc>('parts');
  await parts.createIndex({ keys: { runId: 1, index: 1 } });
  await parts.createIndex({ keys: { status: 1, createdAt: 1 } });
  await parts.createIndex({ keys: { jobId: 1 } });
  await parts.createIndex({ keys: { deadline: 1 } });
  const claimed = (workerId: string, leaseUntil: Date) => ({
    $set: { status: 'processing', workerId, leaseUntil, updatedAt: new Date() },
    $inc: { attempts: 1 },
  });
  return {
    async insert(docs) {
      for (const doc of docs) await parts.insertOne(doc);
    },
    claimOwn: (runId, workerId, leaseUntil) =>
      parts.findOneAndUpdate({ runId, status: 'pending' }, claimed(workerId, leaseUntil), { sort: { frames: -1, index: 1 } }),
    /**
     * As pendingFair does for jobs: the accounts running the least first, one load level at a
     * time (so one account's long backlog cannot hide another's parts), then the oldest run and
     * its longest part.
     */
    async claimOther(workerId, leaseUntil, load) {
      const now = new Date();
      const open = { status: 'pending', shared: true, ownerId: { $ne: workerId }, deadline: { $gt: now } };
      if ((await parts.countDocuments(open)) === 0) return null;
      const counts = await load();
      const levels = [...new Set([0, ...counts.values()])].sort((a, b) => a - b);
      for (const level of levels) {
        const busier = [...counts].filter(([, n]) => n > level).map(([a]) => a);
        const filter = { ...open, ...(busier.length > 0 ? { accountId: { $nin: busier } } : {}) };
        for (let tries = 0; tries < CLAIM_TRIES; tries++) {
          const [next] = await parts.find(filter, { sort: { createdAt: 1, frames: -1, index: 1 }, limit: 1 });
          if (!next) break;
          const got = await parts.findOneAndUpdate({ _id: next._id, status: 'pending' }, claimed(workerId, leaseUntil));
          if (got) return got;
        }
      }
      return null;
    },
    heartbeat: async (id, workerId, leaseUntil, outTimeSec) =>
      (await parts.updateMany({ _id: id, workerId, status: 'processing' }, { $set: { leaseUntil, outTimeSec, updatedAt: new Date() } })) >
      0,
    finish: async (id, workerId, set) =>
      (await parts.updateMany({ _id: id, workerId, status: 'processing' }, { $set: { ...set, leaseUntil: null, updatedAt: new Date() } })) >
      0,
    release: async (id, workerId, how) =>
      (await parts.updateMany(
        { _id: id, workerId, status: 'processing' },
        {
          $set: { ...pendingAgain(), ...(how.ownerOnly ? { shared: false } : {}) },
          ...(how.uncounted ? { $inc: { attempts: -1 } } : {}),
        },
      )) > 0,
    redo: async (id) => (await parts.updateMany({ _id: id, status: 'done' }, { $set: { ...pendingAgain(), shared: false } })) > 0,
    exists: async (id) => (await parts.countDocuments({ _id: id })) > 0,
    async reclaimExpired(id, now, maxAttempts, error) {
      const lapsed = { _id: id, status: 'processing', leaseUntil: { $lt: now } };
      const failed = await parts.findOneAndUpdate(
        { ...lapsed, attempts: { $gte: maxAttempts } },
        { $set: { status: 'failed', error, workerId: null, leaseUntil: null, updatedAt: now } },
      );
      if (failed) return failed;
      return parts.findOneAndUpdate(lapsed, { $set: pendingAgain() });
    },
    ofRun: (runId) => parts.find({ runId }, { sort: { index: 1 } }),
    async processingByAccount() {
      const load = new Map<string, number>();
      for (const p of await parts.find({ status: 'processing' }, { limit: 10_000 }))
        load.set(p.accountId, (load.get(p.accountId) ?? 0) + 1);
      return load;
    },
    deleteRun: (runId) => parts.deleteMany({ runId }),
    deleteJob: (jobId, ownerId) => parts.deleteMany({ jobId, ...(ownerId ? { ownerId } : {}) }),
    runsOf: async (jobId, ownerId) => [...new Set((await parts.find({ jobId, ownerId })).map((p) => p.runId))],
    async expiredRuns(now) {
      const runs = new Map<string, string>();
      for (const p of await parts.find({ deadline: { $lt: now } }, { limit: 1000 })) runs.set(p.runId, p.jobId);
      return [...runs].map(([runId, jobId]) => ({ runId, jobId }));
    },
  };
}
