// Which records the job scan releases as interrupted: sync requests and probes past their lease,
// not async jobs (requeued by their own lease rules), not finished ones, not those still in time.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDocStore, type DocStore } from '@media/docstore';
import { openJobsRepository } from '../src/adapters/repository.js';
import type { JobsRepository } from '../src/domain/ports.js';
import { newJobDoc } from '../src/domain/job-doc.js';

let dir: string;
let store: DocStore;
let repo: JobsRepository;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-lease-repo-'));
  store = await openDocStore({ database: 'jobs', dataDir: dir });
  repo = await openJobsRepository(store);
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

test('expiredAdmissions: sync and probe records processing past their lease, nothing else', async () => {
  const who = { accountId: 'acc_l', keyId: 'key_l' };
  const counts = { inputCount: 1, outputCount: 1 };
  const past = new Date(Date.now() - 1000);
  const future = new Date(Date.now() + 60_000);
  const sync = newJobDoc(who, 'sync', 'processing', counts, { leaseUntil: past });
  const probe = newJobDoc(who, 'probe', 'processing', counts, { leaseUntil: past });
  const inTime = newJobDoc(who, 'sync', 'processing', counts, { leaseUntil: future });
  const async = newJobDoc(who, 'async', 'processing', counts, { leaseUntil: past });
  const done = newJobDoc(who, 'sync', 'completed', counts, { leaseUntil: past });
  for (const doc of [sync, probe, inTime, async, done]) await repo.admit(doc, 50);
  const expired = (await repo.expiredAdmissions(new Date())).map((j) => j._id).sort();
  expect(expired).toEqual([sync._id, probe._id].sort());
});
