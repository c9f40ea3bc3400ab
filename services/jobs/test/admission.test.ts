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
  await expect(admit()).rejects.toMatchObject({ rawMessage: 'Too many jobs in progress: at most 3 per account. Retry when one finishes.' }); // the configured limit, named
  expect((await rpc.client.countActiveJobs({ accountId: 'acc_a' })).active).toBe(3);
  // Another account is not affected.
  expect((await rpc.client.admitJob({ accountId: 'acc_b', keyId: 'key_b', kind: JobKind.PROBE })).jobId).toMatch(/^job_/);
  await rpc.client.finishJob({ accountId: 'acc_a', jobId: ids[0]!, status: JobStatus.COMPLETED, usage: { timeSec: 1, inputSizeGb: 0, outputSizeGb: 0, gbSec: 0 }, amountUsd: 0 });
  await rpc.client.finishJob({ accountId: 'acc_a', jobId: ids[1]!, status: JobStatus.FAILED, error: 'x' });
  await rpc.client.finishJob({ accountId: 'acc_a', jobId: ids[2]!, status: JobStatus.UNSPECIFIED });
  expect((await rpc.client.countActiveJobs({ accountId: 'acc_a' })).active).toBe(0);
  expect((await admit()).jobId).toMatch(/^job_/);
});

describe('an admission whose process stopped before finishing it', () => {
  let dir: string;
  let short: RunningService;
  let shortRpc: ServiceClient<typeof JobsService>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobs-lease-'));
    // A 1 s limit: an admission not finished within 2 s is released by the next scan.
    short = await startJobs(
      loadConfig(jobsConfigSpec, { DATA_DIR: dir, LOG_LEVEL: 'silent', JOBS_PORT: '0', PARALLEL_JOBS: '1', JOB_TIMEOUT_SEC: '1', JOB_SCAN_INTERVAL_MS: '100' }),
      { bus },
    );
    shortRpc = createServiceClient(JobsService, short.url);
  });
  afterAll(async () => {
    shortRpc?.close();
    await short?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('no longer holds a slot once twice the time limit has passed (a Probe service that died, say)', async () => {
    const admit = () => shortRpc.client.admitJob({ accountId: 'acc_c', keyId: 'key_c', kind: JobKind.PROBE });
    const started = Date.now();
    await admit(); // never finished
    await expect(admit()).rejects.toMatchObject({ rawMessage: expect.stringMatching(/^Too many jobs in progress/) });
    for (;;) {
      if ((await shortRpc.client.countActiveJobs({ accountId: 'acc_c' })).active === 0) break;
      if (Date.now() - started > 10_000) throw new Error('the admission was never released');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect((await admit()).jobId).toMatch(/^job_/);
  });
});
