// StoreLocalFile: a job output already on this host is stored in place (no bytes over RPC) with
// the same checks, bookkeeping and answer as a streamed StoreFile; only a regular file inside the
// trusted Jobs work directory is taken, and a refusal stores nothing. S3 and "off" keep streaming.
import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { StorageService, StoreFileRequestSchema } from '@media/proto/media/storage/v1/storage_pb.js';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { createServiceClient, loadConfig, type ServiceClient } from '@media/platform';
import { filesUnder, s3Env, startS3Server, type S3TestServer } from '@media/testkit';
import { startStorage, storageConfigSpec, type RunningStorage } from '../src/index.js';

const accountId = 'acc_local';
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000049444154', 'hex');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let bus: EventBus;
beforeAll(async () => {
  bus = await connectEventBus({});
});
afterAll(async () => {
  await bus?.close();
});

interface Running {
  dataDir: string;
  storage: RunningStorage;
  rpc: ServiceClient<typeof StorageService>;
  close(): Promise<void>;
}

async function start(env: Record<string, string> | ((dataDir: string) => Record<string, string>) = {}): Promise<Running> {
  const dataDir = await mkdtemp(join(tmpdir(), 'storage-local-'));
  const config = loadConfig(storageConfigSpec, {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    STORAGE_PORT: '0',
    STORAGE_HTTP_PORT: '0',
    STORAGE_HTTP_HOST: '127.0.0.1',
    ...(typeof env === 'function' ? env(dataDir) : env),
  });
  const storage = await startStorage(config, { bus });
  const rpc = createServiceClient(StorageService, storage.url);
  return {
    dataDir,
    storage,
    rpc,
    async close() {
      rpc.close();
      await storage.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const header = (dirId: string, fileName: string, size: number, overwrite = false) => ({
  accountId,
  dirId,
  fileName,
  size: BigInt(size),
  overwrite,
  downloadExpiresInSeconds: 3600,
});

async function* streamed(h: ReturnType<typeof header>, bytes: Buffer) {
  yield create(StoreFileRequestSchema, { part: { case: 'header', value: h } });
  for (let i = 0; i < bytes.length; i += 256 * 1024)
    yield create(StoreFileRequestSchema, { part: { case: 'chunk', value: bytes.subarray(i, i + 256 * 1024) } });
}

/** The error a call rejects with, as code and text. */
async function failure(call: Promise<unknown>): Promise<{ code: Code; message: string }> {
  try {
    await call;
  } catch (err) {
    const e = ConnectError.from(err);
    return { code: e.code, message: e.rawMessage };
  }
  throw new Error('expected the call to fail');
}

describe('local-disk Storage sharing the disk with Jobs', () => {
  let s: Running;
  let work: string; // the trusted Jobs work directory (the default DATA_DIR/jobs/work)
  let jobDir: string;
  let dirId: string;

  beforeAll(async () => {
    s = await start();
    work = join(s.dataDir, 'jobs', 'work');
    jobDir = join(work, 'job_x-abc', 'out');
    await mkdir(jobDir, { recursive: true });
    dirId = (await s.rpc.client.createDirectory({ accountId })).directory!.id;
  });
  afterAll(async () => {
    await s?.close();
  });

  test('a finished output is stored in place: same answer, bytes, size and type as streamed', async () => {
    const bytes = Buffer.concat([PNG_HEAD, randomBytes(1_500_000)]);
    const source = join(jobDir, 'frame.png');
    await writeFile(source, bytes);

    const local = await s.rpc.client.storeLocalFile({ header: header(dirId, 'local.png', bytes.length), sourcePath: source });
    const viaStream = await s.rpc.client.storeFile(streamed(header(dirId, 'streamed.png', bytes.length), bytes));

    expect(local.file).toMatchObject({ dirId, fileName: 'local.png', filePath: `${dirId}/local.png`, uploaded: true });
    const { url: _u1, filePath: _p1, ...localDownload } = local.download!;
    const { url: _u2, filePath: _p2, ...streamedDownload } = viaStream.download!;
    expect(localDownload).toEqual(streamedDownload);
    expect(localDownload).toMatchObject({ method: 'GET', expiresInSeconds: 3600, fileSize: BigInt(bytes.length), fileType: 'image/png' });
    const info = (name: string) => s.rpc.client.getFileInfo({ file: { accountId, dirId, fileName: name } });
    expect((await info('local.png')).fileInfo).toEqual({ ...(await info('streamed.png')).fileInfo, filePath: `${dirId}/local.png` });

    const got = Buffer.from(await (await fetch(local.download!.url)).arrayBuffer());
    expect(got.length).toBe(bytes.length);
    expect(sha(got)).toBe(sha(bytes));

    // Same filesystem: the blob is a hard link to the output, no byte copied.
    const { localPath } = await s.rpc.client.resolveFile({ file: { accountId, dirId, fileName: 'local.png' } });
    expect((await stat(localPath!)).ino).toBe((await stat(source)).ino);
    // The source stays for its owner to delete (a retried store finds it again); the blob does not depend on it.
    expect((await stat(source)).size).toBe(bytes.length);
    await rm(source);
    expect(sha(Buffer.from(await (await fetch(local.download!.url)).arrayBuffer()))).toBe(sha(bytes));
  });

  test('the directory, name, overwrite and size checks answer exactly as for a streamed store', async () => {
    const bytes = Buffer.from('output bytes');
    const source = join(jobDir, 'checks.txt');
    await writeFile(source, bytes);
    const both = async (h: ReturnType<typeof header>) => ({
      local: await failure(s.rpc.client.storeLocalFile({ header: h, sourcePath: source })),
      streamed: await failure(s.rpc.client.storeFile(streamed(h, bytes))),
    });

    const otherAccount = { ...header(dirId, 'a.txt', bytes.length), accountId: 'acc_other' };
    const cases = [
      otherAccount,
      header('dir_doesnotexist00000000', 'a.txt', bytes.length),
      header(dirId, 'bad/name.txt', bytes.length),
      header(dirId, '', bytes.length),
    ];
    for (const h of cases) {
      const { local, streamed: viaStream } = await both(h);
      expect(local).toEqual(viaStream);
      expect(local.code).not.toBe(Code.FailedPrecondition);
    }

    await s.rpc.client.storeLocalFile({ header: header(dirId, 'same.txt', bytes.length), sourcePath: source });
    const again = await both(header(dirId, 'same.txt', bytes.length));
    expect(again.local).toEqual({ code: Code.AlreadyExists, message: 'File name already exists in directory' });
    expect(again.streamed).toEqual(again.local);
    const replacement = Buffer.from('replaced');
    await writeFile(source, replacement);
    const replaced = await s.rpc.client.storeLocalFile({ header: header(dirId, 'same.txt', replacement.length, true), sourcePath: source });
    expect(await (await fetch(replaced.download!.url)).text()).toBe('replaced');

    // Over 5 GB (a sparse file): the same 403 as any too-large store, and nothing kept.
    const big = join(jobDir, 'big.bin');
    await writeFile(big, '');
    await truncate(big, 5_000_000_001);
    const before = await filesUnder(join(s.dataDir, 'storage', 'blobs'));
    expect(await failure(s.rpc.client.storeLocalFile({ header: header(dirId, 'big.bin', 5_000_000_001), sourcePath: big }))).toEqual({
      code: Code.PermissionDenied,
      message: "File 'big.bin' size (5000.00 MB) exceeds max file size limit of 5 GB.",
    });
    expect(await filesUnder(join(s.dataDir, 'storage', 'blobs'))).toEqual(before);
    await rm(big);
  });

  test('a source outside the trusted work directory, a symbolic link or a ".." path is refused and nothing is stored', async () => {
    const secret = Buffer.from('not for users');
    const outside = join(s.dataDir, 'outside.bin');
    await writeFile(outside, secret);
    const inside = join(jobDir, 'inside.bin');
    await writeFile(inside, secret);
    await symlink(outside, join(jobDir, 'link-out.bin'));
    await symlink(inside, join(jobDir, 'link-in.bin')); // even a link to a file that is itself inside
    await symlink(s.dataDir, join(work, 'job_y-link')); // a linked directory below the root
    await mkdir(join(work, 'job_z-abc', 'out', 'sub'), { recursive: true });
    const signingSecret = join(s.dataDir, 'storage', 'signing-secret');

    const OUTSIDE = /outside the trusted directory/;
    const LINK = /symbolic link/;
    const NOT_NORMAL = /not a normalised path/;
    const refused: [string, number, RegExp][] = [
      [outside, secret.length, OUTSIDE],
      [signingSecret, (await stat(signingSecret)).size, OUTSIDE],
      ['/etc/hostname', (await stat('/etc/hostname')).size, OUTSIDE],
      [join(jobDir, 'link-out.bin'), secret.length, LINK],
      [join(jobDir, 'link-in.bin'), secret.length, LINK],
      [join(work, 'job_y-link', 'outside.bin'), secret.length, LINK],
      [`${jobDir}/../../../../outside.bin`, secret.length, NOT_NORMAL],
      [`${jobDir}/../out/inside.bin`, secret.length, NOT_NORMAL],
      [`${work}/./job_x-abc/out/inside.bin`, secret.length, NOT_NORMAL],
      [`${work}//job_x-abc/out/inside.bin`, secret.length, NOT_NORMAL],
      ['jobs/work/job_x-abc/out/inside.bin', secret.length, /not an absolute path/],
      ['', 0, /not an absolute path/],
      [join(work, 'job_z-abc', 'out', 'sub'), 4096, /not a regular file/],
      [work, 4096, OUTSIDE], // the root itself
      [join(jobDir, 'missing.bin'), 1, /no such file on this host/], // Jobs on another host
      [inside, secret.length + 1, /the file has 13 bytes, not 14/], // not the size Jobs saw
    ];
    const blobsBefore = await filesUnder(join(s.dataDir, 'storage', 'blobs'));
    const listedBefore = (await s.rpc.client.listFiles({ accountId, dirId })).files.length;
    for (const [sourcePath, size, reason] of refused) {
      const err = await failure(s.rpc.client.storeLocalFile({ header: header(dirId, 'taken.bin', size), sourcePath }));
      expect({ sourcePath, code: err.code }).toEqual({ sourcePath, code: Code.FailedPrecondition });
      expect(err.message).toMatch(/^Local store refused: /);
      expect(err.message).toMatch(reason);
    }
    expect((await s.rpc.client.listFiles({ accountId, dirId })).files.length).toBe(listedBefore);
    expect(await filesUnder(join(s.dataDir, 'storage', 'blobs'))).toEqual(blobsBefore);
    await expect(s.rpc.client.getFileInfo({ file: { accountId, dirId, fileName: 'taken.bin' } })).rejects.toMatchObject({
      rawMessage: 'File not found in directory',
    });
    // The sources are untouched.
    expect((await lstat(join(jobDir, 'link-out.bin'))).isSymbolicLink()).toBe(true);
    expect((await stat(outside)).size).toBe(secret.length);
  });

  test('a trusted directory reached through a symbolic link accepts paths under either name', async () => {
    const real = join(s.dataDir, 'real-work');
    const linked = join(s.dataDir, 'linked-work');
    await mkdir(join(real, 'job_l-abc'), { recursive: true });
    await symlink(real, linked);
    const other = await start({ JOBS_WORK_DIR: linked });
    try {
      const d = (await other.rpc.client.createDirectory({ accountId })).directory!.id;
      await writeFile(join(real, 'job_l-abc', 'o.txt'), 'via link');
      for (const [name, path] of [
        ['a.txt', join(linked, 'job_l-abc', 'o.txt')],
        ['b.txt', join(real, 'job_l-abc', 'o.txt')],
      ]) {
        const stored = await other.rpc.client.storeLocalFile({ header: header(d, name!, 8), sourcePath: path! });
        expect(await (await fetch(stored.download!.url)).text()).toBe('via link');
      }
      // The default work directory of this instance's DATA_DIR is not trusted when another is configured.
      const defaultWork = join(other.dataDir, 'jobs', 'work', 'job_d-abc');
      await mkdir(defaultWork, { recursive: true });
      await writeFile(join(defaultWork, 'o.txt'), 'x');
      expect(
        (await failure(other.rpc.client.storeLocalFile({ header: header(d, 'c.txt', 1), sourcePath: join(defaultWork, 'o.txt') }))).code,
      ).toBe(Code.FailedPrecondition);
    } finally {
      await other.close();
    }
  });
});

test.each([
  ['JOBS_WORK_DIR=off', () => 'off'],
  ["a JOBS_WORK_DIR holding Storage's own files (DATA_DIR)", (dataDir: string) => dataDir],
])('%s: every local store is refused, streaming works', async (_what, workDirFor) => {
  const s = await start((dataDir) => ({ JOBS_WORK_DIR: workDirFor(dataDir) }));
  try {
    const dirId = (await s.rpc.client.createDirectory({ accountId })).directory!.id;
    const work = join(s.dataDir, 'jobs', 'work', 'job_o-abc');
    await mkdir(work, { recursive: true });
    await writeFile(join(work, 'o.txt'), 'abc');
    const err = await failure(s.rpc.client.storeLocalFile({ header: header(dirId, 'o.txt', 3), sourcePath: join(work, 'o.txt') }));
    expect(err.code).toBe(Code.FailedPrecondition);
    const stored = await s.rpc.client.storeFile(streamed(header(dirId, 'o.txt', 3), Buffer.from('abc')));
    expect(await (await fetch(stored.download!.url)).text()).toBe('abc');
  } finally {
    await s.close();
  }
});

describe('S3-backed Storage', () => {
  let s3: S3TestServer;
  let s: Running;
  beforeAll(async () => {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    s3 = await startS3Server();
    s = await start(s3Env(s3) as Record<string, string>);
  });
  afterAll(async () => {
    await s?.close();
    await s3?.stop();
  });

  test('refuses a local store (nothing written) and keeps storing streamed outputs', async () => {
    const dirId = (await s.rpc.client.createDirectory({ accountId })).directory!.id;
    const work = join(s.dataDir, 'jobs', 'work', 'job_s-abc');
    await mkdir(work, { recursive: true });
    const bytes = Buffer.concat([PNG_HEAD, randomBytes(700_000)]);
    await writeFile(join(work, 'o.png'), bytes);
    const err = await failure(
      s.rpc.client.storeLocalFile({ header: header(dirId, 'o.png', bytes.length), sourcePath: join(work, 'o.png') }),
    );
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(await s3.listKeys(`${accountId}/${dirId}/`)).toEqual([]);

    const stored = await s.rpc.client.storeFile(streamed(header(dirId, 'o.png', bytes.length), bytes));
    expect(stored.download).toMatchObject({ fileSize: BigInt(bytes.length), fileType: 'image/png' });
    expect(sha(Buffer.from(await (await fetch(stored.download!.url)).arrayBuffer()))).toBe(sha(bytes));
    expect(await s3.listKeys(`${accountId}/${dirId}/`)).toHaveLength(1);
  });

  test('a file just uploaded, resolved by several requests at once: every one finds it', async () => {
    // The upload went straight to S3: the first resolve records it, and the others, settling it
    // at the same moment, must read that record rather than answer 404 for an uploaded file.
    for (let round = 0; round < 5; round++) {
      const { file, upload } = await s.rpc.client.registerFile({ accountId, fileName: `in${round}.png` });
      const put = await fetch(upload!.url, { method: 'PUT', headers: upload!.headers, body: Buffer.concat([PNG_HEAD, randomBytes(1000)]) });
      expect(put.ok).toBe(true);
      const ref = { accountId, dirId: file!.dirId, fileName: `in${round}.png` };
      const answers = await Promise.allSettled(Array.from({ length: 6 }, () => s.rpc.client.resolveFile({ file: ref })));
      expect(answers.map((a) => (a.status === 'fulfilled' ? 'found' : ConnectError.from(a.reason).rawMessage))).toEqual(
        Array(6).fill('found'),
      );
    }
  });
});
