// The same user flow with blobs on S3 (s3rver): uploads go straight to S3 through presigned URLs
// and Storage learns of them on the next read.
import { s3Env, startS3Server, waitFor, type S3TestServer } from '@media/testkit';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { Events, subscribeEvent } from '@media/platform';
import { caller, PNG } from './helpers.js';

let s3: S3TestServer;
let stack: TestStack;
let api: ReturnType<typeof caller>;

beforeAll(async () => {
  s3 = await startS3Server();
  stack = await startTestStack({
    ...s3Env(s3),
    SWEEP_INTERVAL_SEC: '1',
  });
  api = caller(stack, (await stack.newAccount()).authorization);
});
afterAll(async () => {
  await stack?.close();
  await s3?.stop();
});

test('register, presigned PUT, info with sniffed type, presigned GET byte-identical, delete', async () => {
  const { body } = await api('POST', '/file', { file_name: 'pic.png' });
  expect(body.upload.url.startsWith(s3.endpoint)).toBe(true);
  expect(body.upload.url).not.toContain('x-amz-checksum');
  expect((await api('GET', `/file/${body.file.file_path}`)).status).toBe(404);
  const put = await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: PNG });
  expect(put.status).toBe(200);
  expect((await api('GET', `/file/${body.file.file_path}`)).body).toEqual({
    ok: true,
    file_info: { file_path: body.file.file_path, file_type: 'image/png', file_size: PNG.length },
  });
  expect((await api('GET', `/directory/${body.file.dir_id}`)).body.files).toEqual([{ file_name: 'pic.png', added_on: expect.any(String) }]);
  const dl = await api('GET', `/file/download/${body.file.file_path}`);
  expect(dl.body.download).toMatchObject({ method: 'GET', expiresInSeconds: 300, file_size: PNG.length, file_type: 'image/png' });
  const got = await fetch(dl.body.download.url);
  expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);
  expect((await api('POST', '/file', { file_name: 'pic.png', dir_id: body.file.dir_id })).status).toBe(409);
  expect((await api('DELETE', `/file/${body.file.file_path}`)).status).toBe(200);
  expect((await fetch(dl.body.download.url)).status).toBe(404);
});

test('expired directory: 404 at once, then swept from the bucket', async () => {
  const swept: string[] = [];
  const sub = await subscribeEvent(stack.bus, Events.directoryExpired, async (e) => void swept.push(e.dirId));
  // Long enough for the upload and the download link under load; the test waits for the expiry.
  const dir = (await api('POST', '/directory', { ttl: 4 })).body.directory.id as string;
  const { body } = await api('POST', '/file', { file_name: 'a.png', dir_id: dir });
  await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: PNG });
  const dl = (await api('GET', `/file/download/${body.file.file_path}`)).body.download.url as string;
  await waitFor('the directory to expire', async () => (await api('GET', `/file/${body.file.file_path}`)).status === 404);
  expect((await api('GET', `/file/${body.file.file_path}`)).status).toBe(404);
  await waitFor('the directory swept', async () => swept.includes(dir));
  expect((await fetch(dl)).status).toBe(404);
  await sub.stop();
});
