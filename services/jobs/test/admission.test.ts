// Admission for work run elsewhere (probes): counted with the account's other jobs, 429 past the limit.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobKind, JobStatus, JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { openDocStore } from '@media/docstore';
import { admissionOwner, createServiceClient, loadConfig, type RunningService, type ServiceClient } from '@media/platform';
import { waitFor } from '@media/testkit';
import { openJobsRepository } from '../src/adapters/repository.js';
import { newJobDoc, type JobDoc } from '../src/domain/job-doc.js';
import { jobsConfigSpec, startJobs } from '../src/index.js';

let dataDir: string;
let bus: EventBus;
let jobs: RunningService;
let rpc: ServiceClient<typeof JobsService>;
/** What the scans of the Jobs processes below released, by job id (their test hook). */
const released = new Map<string, { job: JobDoc; at: Date }>();
const onAdmissionReleased = (job: JobDoc, at: Date) => void released.set(job._id, { job, at });
const releaseOf = (jobId: string) => waitFor(`the release of ${jobId}`, () => released.get(jobId));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'jobs-admit-'));
  bus = await connectEventBus({});
  jobs = await startJobs(loadConfig(jobsConfigSpec, { DATA_DIR: dataDir, LOG_LEVEL: 'silent', JOBS_PORT: '0', PARALLEL_JOBS: '3' }), {
    bus,
  });
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
  await rpc.client.finishJob({
    accountId: 'acc_a',
    jobId: ids[0]!,
    status: JobStatus.COMPLETED,
    usage: { timeSec: 1, inputSizeGb: 0, outputSizeGb: 0, gbSec: 0 },
    amountUsd: 0,
  });
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
      loadConfig(jobsConfigSpec, {
        DATA_DIR: dir,
        LOG_LEVEL: 'silent',
        JOBS_PORT: '0',
        PARALLEL_JOBS: '1',
        JOB_TIMEOUT_SEC: '1',
        JOB_SCAN_INTERVAL_MS: '100',
      }),
      { bus },
      { onAdmissionReleased },
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
    const { jobId } = await admit(); // never finished
    await expect(admit()).rejects.toMatchObject({ rawMessage: expect.stringMatching(/^Too many jobs in progress/) });
    // Released by a scan, not before twice the limit after it was admitted (the service's own times).
    const { job, at } = await releaseOf(jobId);
    expect(at.getTime() - job.createdAt.getTime()).toBeGreaterThanOrEqual(2000);
    expect((await shortRpc.client.countActiveJobs({ accountId: 'acc_c' })).active).toBe(0);
    expect((await admit()).jobId).toMatch(/^job_/);
  });
});

describe('admissions with an owner: a short lease while it renews them, and released at once when it starts again', () => {
  let dir: string;
  let owned: RunningService | undefined;
  let ownedRpc: ServiceClient<typeof JobsService> | undefined;
  const start = async () => {
    owned = await startJobs(
      loadConfig(jobsConfigSpec, {
        DATA_DIR: dir,
        LOG_LEVEL: 'silent',
        JOBS_PORT: '0',
        PARALLEL_JOBS: '2',
        ADMISSION_LEASE_SEC: '1',
        JOB_SCAN_INTERVAL_MS: '100',
      }),
      { bus },
      { onAdmissionReleased },
    );
    ownedRpc = createServiceClient(JobsService, owned.url);
    return ownedRpc;
  };
  const stop = async () => {
    ownedRpc?.close();
    await owned?.close();
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobs-owned-'));
  });
  afterAll(async () => {
    await stop();
    await rm(dir, { recursive: true, force: true });
  });
  const active = async (client: ServiceClient<typeof JobsService>, accountId: string) =>
    (await client.client.countActiveJobs({ accountId })).active;

  test('renewed, an admission outlives its lease; not renewed, the scan releases it within about one lease', async () => {
    const client = await start();
    const { jobId } = await client.client.admitJob({ accountId: 'acc_o', keyId: 'key_o', kind: JobKind.PROBE, owner: 'probe-1' });
    let renewal: Promise<unknown> = Promise.resolve();
    const renewing = setInterval(
      () => (renewal = client.client.renewAdmissions({ owner: 'probe-1', jobIds: [jobId] }).catch(() => undefined)),
      300,
    );
    // Markers: admissions of another account that nobody renews, admitted one after the other. The
    // scan releasing the third shows three leases have lapsed since this one was admitted.
    const marker = async () =>
      (await client.client.admitJob({ accountId: 'acc_m', keyId: 'key_m', kind: JobKind.PROBE, owner: 'probe-3' })).jobId;
    for (let i = 0; i < 3; i++) await releaseOf(await marker());
    clearInterval(renewing);
    await renewal;
    expect(await active(client, 'acc_o')).toBe(1);
    expect(released.has(jobId)).toBe(false);
    // Another owner's renewal does not keep it: its lease ends no later than that of a marker
    // admitted now, and the scan releases it soon after that end (the service's own times).
    await client.client.renewAdmissions({ owner: 'probe-2', jobIds: [jobId] });
    const last = await releaseOf(await marker());
    const { job, at } = await releaseOf(jobId);
    expect(job.leaseUntil!.getTime()).toBeLessThanOrEqual(last.job.leaseUntil!.getTime());
    expect(at.getTime() - job.leaseUntil!.getTime()).toBeLessThan(1500);
    expect(await active(client, 'acc_o')).toBe(0);
  });

  test('a renewal names its owner', async () => {
    await expect(ownedRpc!.client.renewAdmissions({ owner: '', jobIds: ['job_x'] })).rejects.toMatchObject({
      rawMessage: 'owner is required',
    });
  });

  test('a Jobs process started again releases at once the sync requests and probes its host left in progress', async () => {
    // What a crash of `npm start` leaves: a sync request and a probe admitted under the names of
    // this host's Jobs and Probe, never finished; and one of another process, still running.
    const config = loadConfig(jobsConfigSpec, { DATA_DIR: dir });
    const owner = admissionOwner('jobs', config);
    await stop();
    const store = await openDocStore({ database: 'jobs', dataDir: dir });
    const repo = await openJobsRepository(store);
    const left = newJobDoc(
      { accountId: 'acc_s', keyId: 'k' },
      'sync',
      'processing',
      { inputCount: 1, outputCount: 1 },
      { owner, leaseUntil: new Date(Date.now() + 3_600_000) },
    );
    const other = newJobDoc(
      { accountId: 'acc_s', keyId: 'k' },
      'sync',
      'processing',
      { inputCount: 1, outputCount: 1 },
      { owner: 'elsewhere', leaseUntil: new Date(Date.now() + 3_600_000) },
    );
    const probe = newJobDoc(
      { accountId: 'acc_s', keyId: 'k' },
      'probe',
      'processing',
      { inputCount: 1, outputCount: 0 },
      { owner: admissionOwner('probe', config), leaseUntil: new Date(Date.now() + 3_600_000) },
    );
    await repo.admit(left, 50);
    await repo.admit(other, 50);
    await repo.admit(probe, 50);
    await store.close();
    const client = await start();
    // Before any scan could have run, and though their leases have an hour left; the other stays.
    expect(await active(client, 'acc_s')).toBe(1);
    const job = await client.client.getJob({ accountId: 'acc_s', jobId: left._id });
    expect(job.job?.status).toBe(JobStatus.FAILED);
    expect(job.job?.error).toBe('The request was interrupted: the service handling it stopped before it finished.');
  });
});
