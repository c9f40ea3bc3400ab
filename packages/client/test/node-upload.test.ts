// uploadFile with `resume` on an upload URL that does not speak tus: an S3 presigned PUT (s3rver)
// answers OPTIONS without Tus-Resumable, so the file goes by the plain PUT with the URL's headers,
// whole, and nothing is remembered for resuming. (The local-disk URL, which speaks tus, is tested
// through the CLI: tools/cli/test/cli-resume.test.ts.)
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { createBlobStore, type S3BlobStore } from '@media/blobstore';
import type { MediaClient, RegisteredFile } from '@media/client';
import { fileUrlStorage, speaksTus, uploadFile } from '@media/client/node';
import { type S3TestServer, startS3Server } from '@media/testkit';

let s3: S3TestServer;
let store: S3BlobStore;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-node-upload-'));
  s3 = await startS3Server();
  store = (await createBlobStore({
    local: { root: dir, publicBaseUrl: 'http://127.0.0.1:1', signingSecret: 'unused-0123456789abcdef0123456789' },
    s3: { ...s3, forcePathStyle: true },
  })) as S3BlobStore;
}, 60_000);
afterAll(async () => {
  store?.destroy();
  await s3?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('a presigned S3 URL gets the plain PUT, with resume asked for, and no resume entry', async () => {
  const data = randomBytes(3 * 1024 * 1024);
  await writeFile(join(dir, 'clip.bin'), data);
  const key = 'acc_x/dir_y/clip.bin';
  const upload = await store.signUpload(key, { expiresInSeconds: 300, maxBytes: 5_000_000_000 });
  expect(await speaksTus(upload.url)).toBe(false);

  // Only registration is asked of the service here: it hands out the presigned URL.
  const registered = {
    ok: true,
    file: { dir_id: 'dir_y', file_name: 'clip.bin', file_path: 'dir_y/clip.bin', added_on: new Date().toISOString() },
    upload,
  } as unknown as RegisteredFile;
  const client = { register: async () => registered } as unknown as MediaClient;
  const storagePath = join(dir, 'cache', 'tus-uploads.json');
  const progress: number[] = [];
  const got = await uploadFile(client, join(dir, 'clip.bin'), {
    resume: { urlStorage: await fileUrlStorage(storagePath), scope: 'test' },
    onProgress: (p) => progress.push(p.loaded),
  });

  expect(got).toBe(registered);
  expect(progress.at(-1)).toBe(data.length);
  expect((await buffer(await store.get(key))).equals(data)).toBe(true);
  // Nothing was recorded (the storage file is written only when an upload is).
  const recorded = await readFile(storagePath, 'utf8').then(JSON.parse, () => ({}));
  expect(recorded).toEqual({});
}, 60_000);
