// Admission for work run elsewhere (probes): counted with the account's other jobs, 429 past the limit.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobKind, JobStatus, JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { createServiceClient, loadConfig, type RunningService, type ServiceClient } from '@media/platform';
import { jobsConfigSpec, startJobs } from '../src/index.js';

let dataDir: string;
let bus: EventBus;
let jobs: RunningService;
let rpc: ServiceClient<typeof JobsService>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'jobs-admit-'));
  bus = await connectEventBus({});
  jobs = await startJobs(loadConfig(jobsConfigSpec, { DATA_DIR: dataDir, LOG_LEVEL: 'silent', JOBS_PORT: '0', PARALLEL_JOBS: '3' }), { bus });
  rpc = createServiceClient(JobsService, jobs.url);
});
afterAll(async () => {
  rpc?.close();
  await jobs?.close();
  await bus?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('admissions count toward the limit until finished', async () => {
  const admit = () => rpc.client.admitJob({ accountId: 'acc_a', keyId: 'key_a', kind: JobKind.PROBE });
  const ids = [(await admit()).jobId, (await admit()).jobId, (await admit()).jobId];
  expect(ids.every((id) => /^job_[a-z0-9]{20}$/.test(id))).toBe(true);
  await expect(admit()).rejects.toMatchObject({ rawMessage: 'Too many jobs in progress: at most 50 per account. Retry when one finishes.' });
  expect((await rpc.client.countActiveJobs({ accountId: 'acc_a' })).active).toBe(3);
  // Another account is not affected.
  expect((await rpc.client.admitJob({ accountId: 'acc_b', keyId: 'key_b', kind: JobKind.PROBE })).jobId).toMatch(/^job_/);
  await rpc.client.finishJob({ accountId: 'acc_a', jobId: ids[0]!, status: JobStatus.COMPLETED, usage: { timeSec: 1, inputSizeGb: 0, outputSizeGb: 0, gbSec: 0 }, amountUsd: 0 });
  await rpc.client.finishJob({ accountId: 'acc_a', jobId: ids[1]!, status: JobStatus.FAILED, error: 'x' });
  await rpc.client.finishJob({ accountId: 'acc_a', jobId: ids[2]!, status: JobStatus.UNSPECIFIED });
  expect((await rpc.client.countActiveJobs({ accountId: 'acc_a' })).active).toBe(0);
  expect((await admit()).jobId).toMatch(/^job_/);
});
