// How Jobs hands one finished output to Storage: in place first (StoreLocalFile with the file's
// absolute path and size), streamed when Storage declines (and for a while after), and any other
// answer of Storage is the answer, as it would be for a streamed store.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import type { StoreFileRequest, StoreLocalFileRequest } from '@media/proto/media/storage/v1/storage_pb.js';
import { createLogger } from '@media/platform';
import { createOutputStore } from '../src/domain/stages/store-outputs.js';

let dir: string;
let path: string;
const bytes = Buffer.alloc(600_000, 3);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-store-output-'));
  path = join(dir, 'out.mp4');
  await writeFile(path, bytes);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const answer = { file: {}, download: { url: 'http://dl/out.mp4', fileSize: BigInt(bytes.length) } };

/** A Storage client that records calls; `local` decides the StoreLocalFile answer. */
function fakeStorage(local: () => Promise<unknown>) {
  const calls = { local: [] as StoreLocalFileRequest[], streamed: [] as { header: unknown; bytes: number }[] };
  const storage = {
    async storeLocalFile(req: StoreLocalFileRequest) {
      calls.local.push(req);
      return local();
    },
    async storeFile(requests: AsyncIterable<StoreFileRequest>) {
      let header: unknown;
      let n = 0;
      for await (const r of requests) {
        if (r.part.case === 'header') header = r.part.value;
        else if (r.part.case === 'chunk') n += r.part.value.length;
      }
      calls.streamed.push({ header, bytes: n });
      return answer;
    },
  };
  const outputs = createOutputStore(storage as unknown as Parameters<typeof createOutputStore>[0], createLogger('jobs-test', 'silent'));
  return { outputs, calls };
}

const out = () => ({ fileName: 'out.mp4', path, size: bytes.length });

test('in place when Storage takes it: nothing streamed', async () => {
  const { outputs, calls } = fakeStorage(async () => answer);
  expect(await outputs.store('acc_a', 'dir_a', out())).toEqual({
    fileName: 'out.mp4',
    sizeBytes: bytes.length,
    downloadUrl: 'http://dl/out.mp4',
  });
  expect(calls.local).toHaveLength(1);
  expect(calls.local[0]).toMatchObject({
    sourcePath: path,
    header: {
      accountId: 'acc_a',
      dirId: 'dir_a',
      fileName: 'out.mp4',
      size: BigInt(bytes.length),
      overwrite: true,
      downloadExpiresInSeconds: 3600,
    },
  });
  expect(calls.streamed).toEqual([]);
});

test.each([
  ['FAILED_PRECONDITION (S3, another host, a path it does not trust)', Code.FailedPrecondition],
  ['UNIMPLEMENTED (a Storage from before StoreLocalFile)', Code.Unimplemented],
])('streamed when Storage declines with %s, and streamed straight away for a while after', async (_what, code) => {
  const { outputs, calls } = fakeStorage(async () => {
    throw new ConnectError('Local store refused: no', code);
  });
  expect(await outputs.store('acc_a', 'dir_a', out())).toEqual({
    fileName: 'out.mp4',
    sizeBytes: bytes.length,
    downloadUrl: 'http://dl/out.mp4',
  });
  expect(calls.streamed).toEqual([
    { header: expect.objectContaining({ accountId: 'acc_a', dirId: 'dir_a', fileName: 'out.mp4', overwrite: true }), bytes: bytes.length },
  ]);
  await outputs.store('acc_a', 'dir_a', out());
  expect(calls.local).toHaveLength(1);
  expect(calls.streamed).toHaveLength(2);
});

test("Storage's other answers (directory gone, too large, down) are the answer: not streamed again", async () => {
  for (const code of [Code.NotFound, Code.PermissionDenied, Code.Unavailable]) {
    const { outputs, calls } = fakeStorage(async () => {
      throw new ConnectError('no', code);
    });
    await expect(outputs.store('acc_a', 'dir_a', out())).rejects.toMatchObject({ code });
    expect(calls.streamed).toEqual([]);
  }
});
