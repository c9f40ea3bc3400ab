// S3 specifics the contract does not cover: multipart, list paging, URL shape, public endpoint.
import { S3Client } from '@aws-sdk/client-s3';
import { startS3Server, type S3TestServer } from '@media/testkit';
import { BlobTooLargeError } from '../src/index.js';
import { createS3BlobStore, type S3BlobStore } from '../src/s3.js';
import { putStream } from '../src/s3-put.js';
import { randomData, readAll, sha256, streamOf } from './helpers.js';

let s3: S3TestServer;
let store: S3BlobStore;
let raw: S3Client;

beforeAll(async () => {
  s3 = await startS3Server();
  store = createS3BlobStore({ ...s3, forcePathStyle: true, listPageSize: 2 });
  raw = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3 });
});
afterAll(async () => {
  store?.destroy();
  raw?.destroy();
  await s3?.stop();
});

/** Names of the S3 commands `client` sends from now on. */
function recordCommands(client: S3Client): string[] {
  const names: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      names.push(context.commandName as string);
      return next(args);
    },
    { step: 'initialize' },
  );
  return names;
}

it('streams bodies larger than a part through a multipart upload', async () => {
  const data = randomData(12 * 1024 * 1024 + 5);
  const sent = recordCommands(raw);
  const body = streamOf(data);
  expect(await putStream(raw, body, { bucket: s3.bucket, key: 'acc/mp/big.bin', contentType: 'video/mp4' })).toEqual({ size: data.length });
  expect(sent).toEqual(['CreateMultipartUploadCommand', 'UploadPartCommand', 'UploadPartCommand', 'CompleteMultipartUploadCommand']);
  expect(await store.head('acc/mp/big.bin')).toEqual({ size: data.length, contentType: 'video/mp4' });
  expect(sha256(await readAll(await store.get('acc/mp/big.bin')))).toBe(sha256(data));
});

it('aborts a multipart upload that exceeds maxBytes after its first part', async () => {
  const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3 });
  const sent = recordCommands(client);
  try {
    const put = putStream(client, streamOf(randomData(12 * 1024 * 1024)), {
      bucket: s3.bucket,
      key: 'acc/mp/refused.bin',
      maxBytes: 10 * 1024 * 1024,
    });
    await expect(put).rejects.toBeInstanceOf(BlobTooLargeError);
  } finally {
    client.destroy();
  }
  expect(sent).toEqual(['CreateMultipartUploadCommand', 'UploadPartCommand', 'AbortMultipartUploadCommand']);
  expect(await store.head('acc/mp/refused.bin')).toBeNull();
});

it('aborts a multipart upload whose completion fails, so no parts are left behind', async () => {
  const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3 });
  const sent = recordCommands(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'CompleteMultipartUploadCommand') throw new Error('completion refused');
      return next(args);
    },
    { step: 'initialize' },
  );
  try {
    const put = putStream(client, streamOf(randomData(9 * 1024 * 1024)), { bucket: s3.bucket, key: 'acc/mp/incomplete.bin' });
    await expect(put).rejects.toThrow('completion refused');
  } finally {
    client.destroy();
  }
  expect(sent).toEqual([
    'CreateMultipartUploadCommand',
    'UploadPartCommand',
    'UploadPartCommand',
    'CompleteMultipartUploadCommand',
    'AbortMultipartUploadCommand',
  ]);
  expect(await store.head('acc/mp/incomplete.bin')).toBeNull();
});

it('pages through listings when deleting by prefix (s3rver continuation tokens need the legacy provider)', async () => {
  for (let i = 0; i < 5; i++) await store.put(`acc/paged/f${i}`, streamOf(Buffer.from(String(i))));
  await store.put('acc/pagedX', streamOf(Buffer.from('kept')));
  expect(await store.deletePrefix('acc/paged/')).toBe(5);
  expect(await store.head('acc/paged/f4')).toBeNull();
  expect(await store.head('acc/pagedX')).not.toBeNull();
});

it('signs If-None-Match into upload URLs and adds no checksum of an empty body', async () => {
  const upload = await store.signUpload('acc/u/once.bin', { expiresInSeconds: 300, maxBytes: 100 });
  expect(upload.headers).toEqual({ 'If-None-Match': '*' });
  const url = new URL(upload.url);
  expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(expect.arrayContaining(['host', 'if-none-match']));
  expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
  expect([...url.searchParams.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
  // s3rver does not enforce If-None-Match, so the second-PUT refusal is real S3's to show.
});

it('puts a public endpoint into URLs and still reaches the same bucket', async () => {
  const publicEndpoint = s3.endpoint.replace('127.0.0.1', 'localhost');
  const outward = createS3BlobStore({ ...s3, forcePathStyle: true, publicEndpoint });
  try {
    await store.put('acc/pub/file.txt', streamOf(Buffer.from('hello')));
    const { url } = await outward.signDownload('acc/pub/file.txt', { expiresInSeconds: 60, contentType: 'text/plain' });
    expect(new URL(url).origin).toBe(publicEndpoint);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="file.txt"');
    expect(await res.text()).toBe('hello');
    expect(await outward.head('acc/pub/file.txt')).toMatchObject({ size: 5 }); // operations use the internal endpoint
  } finally {
    outward.destroy();
  }
});

it('keeps objects across an s3rver restart on the same port', async () => {
  await store.put('acc/r/survivor.bin', streamOf(Buffer.from('still here')));
  await s3.restart();
  expect((await readAll(await store.get('acc/r/survivor.bin'))).toString()).toBe('still here');
});
