// PutPart, GetPart, DeleteParts: a split job's encoded parts, passed between Jobs replicas through
// Storage (issue 42), on the local disk and on S3. Only Jobs may call them; the ids are checked so
// no caller reaches another key; a part is never a user's file.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { PutPartRequestSchema, StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { createLocalDiskBlobStore } from '@media/blobstore';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { createServiceClient, generateInternalCredentials, loadConfig, type CallerIdentity, type ServiceClient } from '@media/platform';
import { filesUnder, s3Env, startS3Server, type S3TestServer } from '@media/testkit';
import { createParts } from '../src/domain/parts.js';
import { startStorage, storageConfigSpec, type RunningStorage } from '../src/index.js';

const CHUNK = 256 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const credentials = generateInternalCredentials();

let bus: EventBus;
beforeAll(async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  bus = await connectEventBus({});
});
afterAll(async () => {
  await bus?.close();
});

type Client = ServiceClient<typeof StorageService>;

interface Running {
  storage: RunningStorage;
  /** Storage's clients as each calling service, and without a credential. */
  as(identity?: CallerIdentity): Client;
  close(): Promise<void>;
}

async function start(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const config = loadConfig(storageConfigSpec, {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    STORAGE_PORT: '0',
    STORAGE_HTTP_PORT: '0',
    STORAGE_HTTP_HOST: '127.0.0.1',
    INTERNAL_CALLERS: credentials.callers,
    ...env,
  });
  const storage = await startStorage(config, { bus });
  const clients = new Map<string, Client>();
  const as = (identity?: CallerIdentity): Client => {
    const name = identity ?? 'none';
    if (!clients.has(name)) {
      // Raw headers rather than the services' own interceptors, which turn refusals into Internal.
      const send: Interceptor = (next) => async (req) => {
        if (identity) {
          req.header.set('x-media-caller', identity);
          req.header.set('x-media-caller-token', credentials.tokens[identity]);
        }
        return next(req);
      };
      clients.set(name, createServiceClient(StorageService, storage.url, { breaker: false, interceptors: [send] }));
    }
    return clients.get(name)!;
  };
  return {
    storage,
    as,
    async close() {
      for (const c of clients.values()) c.close();
      await storage.close();
    },
  };
}

async function* putRequests(part: { jobId: string; runId: string; index: number }, bytes: Buffer) {
  yield create(PutPartRequestSchema, { part: { case: 'header', value: part } });
  for (let i = 0; i < bytes.length; i += CHUNK)
    yield create(PutPartRequestSchema, { part: { case: 'chunk', value: bytes.subarray(i, i + CHUNK) } });
}

/** A part's bytes and how many messages they came in. */
async function getPart(rpc: Client, part: { jobId: string; runId: string; index: number }) {
  const chunks: Buffer[] = [];
  for await (const m of rpc.client.getPart({ part })) chunks.push(Buffer.from(m.chunk));
  return { bytes: Buffer.concat(chunks), messages: chunks.length };
}

/** The error a call rejects with, as code name and text; 'OK' when it succeeds. */
async function outcome(call: () => Promise<unknown>): Promise<{ code: string; message?: string }> {
  try {
    await call();
    return { code: 'OK' };
  } catch (err) {
    const e = ConnectError.from(err);
    return { code: Code[e.code]!, message: e.rawMessage };
  }
}

const backends: [
  string,
  () => Promise<{ env: Record<string, string>; keys(dataDir: string): Promise<string[]>; stop(): Promise<void> }>,
][] = [
  [
    'local disk',
    async () => ({
      env: {},
      // The blob store's files, without uploads in flight.
      keys: async (dataDir) => (await filesUnder(join(dataDir, 'storage', 'blobs'))).filter((k) => !k.startsWith('.')),
      stop: async () => undefined,
    }),
  ],
  [
    'S3',
    async () => {
      const s3: S3TestServer = await startS3Server();
      return { env: s3Env(s3), keys: () => s3.listKeys(), stop: () => s3.stop() };
    },
  ],
];

describe.each(backends)('parts on %s', (_name, backend) => {
  let dataDir: string;
  let s: Running;
  let keys: () => Promise<string[]>;
  let stopBackend: () => Promise<void>;
  let jobs: Client;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'storage-parts-'));
    const b = await backend();
    stopBackend = b.stop;
    keys = () => b.keys(dataDir);
    s = await start(dataDir, b.env);
    jobs = s.as('jobs');
  });
  afterAll(async () => {
    await s?.close();
    await stopBackend?.();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a part put in chunks comes back byte-identical, streamed; a put again replaces it; runs and jobs are separate', async () => {
    const first = randomBytes(3 * 1024 * 1024 + 17);
    const ref = { jobId: 'job_put', runId: 'run_a', index: 0 };
    expect((await jobs.client.putPart(putRequests(ref, first))).size).toBe(BigInt(first.length));
    const got = await getPart(jobs, ref);
    expect(sha(got.bytes)).toBe(sha(first));
    expect(got.messages).toBeGreaterThan(1);

    // Encoded again (its worker died): the new bytes replace the old.
    const again = randomBytes(2 * 1024 * 1024);
    expect((await jobs.client.putPart(putRequests(ref, again))).size).toBe(BigInt(again.length));
    expect(sha((await getPart(jobs, ref)).bytes)).toBe(sha(again));

    // Another run, another index, another job: each its own part.
    const otherRun = randomBytes(1000);
    const otherIndex = randomBytes(2000);
    const otherJob = randomBytes(3000);
    await jobs.client.putPart(putRequests({ ...ref, runId: 'run_b' }, otherRun));
    await jobs.client.putPart(putRequests({ ...ref, index: 1 }, otherIndex));
    await jobs.client.putPart(putRequests({ ...ref, jobId: 'job_put2' }, otherJob));
    expect(sha((await getPart(jobs, ref)).bytes)).toBe(sha(again));
    expect(sha((await getPart(jobs, { ...ref, runId: 'run_b' })).bytes)).toBe(sha(otherRun));
    expect(sha((await getPart(jobs, { ...ref, index: 1 })).bytes)).toBe(sha(otherIndex));
    expect(sha((await getPart(jobs, { ...ref, jobId: 'job_put2' })).bytes)).toBe(sha(otherJob));
    // An empty part is a part too.
    await jobs.client.putPart(putRequests({ ...ref, index: 2 }, Buffer.alloc(0)));
    expect(await getPart(jobs, { ...ref, index: 2 })).toEqual({ bytes: Buffer.alloc(0), messages: 0 });
  });

  test("deleting one run's parts leaves the others; without a run id every run's of the job go; a deleted part is NotFound", async () => {
    const job = 'job_del';
    const put = (runId: string, index: number) => jobs.client.putPart(putRequests({ jobId: job, runId, index }, randomBytes(5000)));
    await Promise.all([put('run_1', 0), put('run_1', 1), put('run_2', 0), put('run_3', 4)]);
    await jobs.client.putPart(putRequests({ jobId: 'job_del-other', runId: 'run_1', index: 0 }, Buffer.from('kept')));

    expect((await jobs.client.deleteParts({ jobId: job, runId: 'run_1' })).deleted).toBe(2);
    expect(await outcome(() => getPart(jobs, { jobId: job, runId: 'run_1', index: 0 }))).toEqual({
      code: 'NotFound',
      message: `Part 0 of job ${job}, run run_1, is not stored: it was never put, or was deleted.`,
    });
    expect((await getPart(jobs, { jobId: job, runId: 'run_2', index: 0 })).bytes).toHaveLength(5000);
    // Deleting again finds nothing, and is no error.
    expect((await jobs.client.deleteParts({ jobId: job, runId: 'run_1' })).deleted).toBe(0);

    expect((await jobs.client.deleteParts({ jobId: job })).deleted).toBe(2);
    for (const [runId, index] of [
      ['run_2', 0],
      ['run_3', 4],
    ] as const)
      expect((await outcome(() => getPart(jobs, { jobId: job, runId, index }))).code).toBe('NotFound');
    // A job whose id starts with the deleted one's is another job.
    expect((await getPart(jobs, { jobId: 'job_del-other', runId: 'run_1', index: 0 })).bytes.toString()).toBe('kept');
    expect((await jobs.client.deleteParts({ jobId: 'job_nothing' })).deleted).toBe(0);
  });

  test('a part never put is NotFound with a sentence', async () => {
    expect(await outcome(() => getPart(jobs, { jobId: 'job_none', runId: 'r', index: 3 }))).toEqual({
      code: 'NotFound',
      message: 'Part 3 of job job_none, run r, is not stored: it was never put, or was deleted.',
    });
  });

  test('ids that are not id-like, a negative index or a stream without its header are refused, and nothing is written', async () => {
    const before = await keys();
    const bad: { jobId: string; runId: string; index: number; why: string }[] = [
      { jobId: '../acc_x', runId: 'r', index: 0, why: 'job_id must be 1 to 64 letters, digits, underscores or hyphens' },
      { jobId: 'a/b', runId: 'r', index: 0, why: 'job_id must be 1 to 64 letters, digits, underscores or hyphens' },
      { jobId: '', runId: 'r', index: 0, why: 'job_id must be 1 to 64 letters, digits, underscores or hyphens' },
      { jobId: 'j'.repeat(65), runId: 'r', index: 0, why: 'job_id must be 1 to 64 letters, digits, underscores or hyphens' },
      { jobId: 'job_ok', runId: '..', index: 0, why: 'run_id must be 1 to 64 letters, digits, underscores or hyphens' },
      { jobId: 'job_ok', runId: 'r.mkv', index: 0, why: 'run_id must be 1 to 64 letters, digits, underscores or hyphens' },
      { jobId: 'job_ok', runId: '', index: 0, why: 'run_id must be 1 to 64 letters, digits, underscores or hyphens' },
      { jobId: 'job_ok', runId: 'r', index: -1, why: 'index must be a whole number from 0' },
    ];
    for (const { why, ...part } of bad) {
      expect(await outcome(() => jobs.client.putPart(putRequests(part, Buffer.from('x'))))).toEqual({
        code: 'InvalidArgument',
        message: why,
      });
      expect(await outcome(() => getPart(jobs, part))).toEqual({ code: 'InvalidArgument', message: why });
    }
    expect(await outcome(() => jobs.client.deleteParts({ jobId: '../acc_x' }))).toMatchObject({ code: 'InvalidArgument' });
    expect(await outcome(() => jobs.client.deleteParts({ jobId: '' }))).toMatchObject({ code: 'InvalidArgument' });
    expect(await outcome(() => jobs.client.deleteParts({ jobId: 'job_ok', runId: 'a/b' }))).toMatchObject({ code: 'InvalidArgument' });
    expect(await outcome(() => jobs.client.deleteParts({ jobId: 'job_ok', runId: '' }))).toMatchObject({ code: 'InvalidArgument' });
    expect(await outcome(() => getPart(jobs, undefined as never))).toEqual({ code: 'InvalidArgument', message: 'part is required' });
    async function* chunkFirst() {
      yield create(PutPartRequestSchema, { part: { case: 'chunk', value: Buffer.from('x') } });
    }
    expect(await outcome(() => jobs.client.putPart(chunkFirst()))).toEqual({
      code: 'InvalidArgument',
      message: 'PutPart must start with a header',
    });
    async function* twoHeaders() {
      yield* putRequests({ jobId: 'job_twice', runId: 'r', index: 0 }, Buffer.from('x'));
      yield create(PutPartRequestSchema, { part: { case: 'header', value: { jobId: 'job_twice', runId: 'r', index: 1 } } });
    }
    expect(await outcome(() => jobs.client.putPart(twoHeaders()))).toEqual({
      code: 'InvalidArgument',
      message: 'PutPart sends one header, then chunks',
    });
    expect(await keys()).toEqual(before);
  });

  test('only Jobs may put, get or delete parts', async () => {
    const ref = { jobId: 'job_callers', runId: 'r', index: 0 };
    await jobs.client.putPart(putRequests(ref, Buffer.from('jobs only')));
    for (const identity of ['gateway', 'probe', 'console', undefined] as const) {
      const rpc = s.as(identity);
      const refused = identity ? 'PermissionDenied' : 'Unauthenticated';
      expect((await outcome(() => rpc.client.putPart(putRequests(ref, Buffer.from('replaced'))))).code).toBe(refused);
      expect((await outcome(() => rpc.client.putPart(putRequests({ ...ref, index: 1 }, Buffer.from('new'))))).code).toBe(refused);
      expect((await outcome(() => getPart(rpc, ref))).code).toBe(refused);
      expect((await outcome(() => rpc.client.deleteParts({ jobId: ref.jobId }))).code).toBe(refused);
    }
    expect((await getPart(jobs, ref)).bytes.toString()).toBe('jobs only');
    expect((await outcome(() => getPart(jobs, { ...ref, index: 1 }))).code).toBe('NotFound');
  });

  test("a part is never one of an account's files or directories", async () => {
    const gateway = s.as('gateway');
    const accountId = 'acc_parts';
    const dirId = (await gateway.client.createDirectory({ accountId })).directory!.id;
    // A part named like the account's directory, and one under an account literally called "parts".
    await jobs.client.putPart(putRequests({ jobId: dirId, runId: 'r', index: 0 }, Buffer.from('part')));
    await jobs.client.putPart(putRequests({ jobId: accountId, runId: dirId, index: 0 }, Buffer.from('part')));
    for (const account of [accountId, 'parts']) {
      const { directories } = await gateway.client.listDirectories({ accountId: account });
      expect(directories.map((d) => d.id)).toEqual(account === accountId ? [dirId] : []);
    }
    expect((await gateway.client.listFiles({ accountId, dirId })).files).toEqual([]);
    expect((await outcome(() => gateway.client.listFiles({ accountId: 'parts', dirId }))).message).toBe('Directory not found');
    expect(
      (await outcome(() => gateway.client.getDownload({ file: { accountId: 'parts', dirId, fileName: '0.mkv' }, expiresInSeconds: 60 })))
        .message,
    ).toBe('Directory not found');
    // Parts are kept under a prefix of their own, apart from every account's files.
    expect((await keys()).filter((k) => k.includes(dirId))).toEqual([`parts/${dirId}/r/0.mkv`, `parts/${accountId}/${dirId}/0.mkv`].sort());
  });
});

test("a put is refused while the disk is below Storage's reserve, as uploads are, and nothing is written", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'storage-parts-full-'));
  // A reserve no disk here has free: every write would dip into it.
  const s = await start(dataDir, { DISK_RESERVE_MB: '100000000' });
  try {
    const jobs = s.as('jobs');
    const err = await outcome(() => jobs.client.putPart(putRequests({ jobId: 'job_full', runId: 'r', index: 0 }, randomBytes(1000))));
    expect(err).toEqual({
      code: 'Unavailable',
      message: 'The service is low on storage space. Retry later, or delete files you no longer need.',
    });
    expect((await outcome(() => getPart(jobs, { jobId: 'job_full', runId: 'r', index: 0 }))).code).toBe('NotFound');
  } finally {
    await s.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a part larger than the largest file Storage keeps is refused, and the part it would have replaced stays', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'storage-parts-limit-'));
  try {
    const blobs = createLocalDiskBlobStore({ root: dir, publicBaseUrl: 'http://localhost', signingSecret: 'test-secret' });
    // The limit is MAX_FILE_BYTES (5 GB) in service; a small one here stands for it.
    const parts = createParts({ blobs, maxBytes: 100_000 });
    const ref = { jobId: 'job_big', runId: 'r', index: 7 };
    await parts.put(ref, Readable.from([Buffer.from('earlier')]));
    await expect(parts.put(ref, Readable.from([randomBytes(60_000), randomBytes(60_000)]))).rejects.toMatchObject({
      kind: 'forbidden',
      message: "File 'part 7 of job_big' size (0.12 MB) exceeds max file size limit of 5 GB.",
    });
    const kept: Buffer[] = [];
    for await (const c of await parts.get(ref)) kept.push(c as Buffer);
    expect(Buffer.concat(kept).toString()).toBe('earlier');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
