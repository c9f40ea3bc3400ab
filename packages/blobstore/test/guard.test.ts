// guardBlobStore puts every S3 call through one guard (platform's breaker); presigning only
// checks it. Which errors are outages (no connection, 5xx) and which are answers (404, too large).
import { Readable } from 'node:stream';
import { BlobNotFoundError, BlobRangeError, BlobTooLargeError, guardBlobStore, isBlobStoreOutage, type BlobStore } from '../src/index.js';

const fake = (): BlobStore & { calls: string[] } => {
  const calls: string[] = [];
  return {
    kind: 's3',
    calls,
    put: async () => (calls.push('put'), { size: 1 }),
    get: async () => (calls.push('get'), Readable.from([])),
    head: async () => (calls.push('head'), null),
    delete: async () => void calls.push('delete'),
    deletePrefix: async () => (calls.push('deletePrefix'), 0),
    signUpload: async () => (calls.push('signUpload'), { url: 'u', method: 'PUT', headers: {}, expiresInSeconds: 1 }),
    signDownload: async () => (calls.push('signDownload'), { url: 'd', method: 'GET', headers: {}, expiresInSeconds: 1 }),
  };
};

test('calls run through the guard; presigning only checks it; a refused put releases its body', async () => {
  const inner = fake();
  let open = false;
  const ran: string[] = [];
  const refused = new Error('503');
  const guarded = guardBlobStore(inner, {
    run: (call) => (open ? Promise.reject(refused) : (ran.push('run'), call())),
    assertAvailable: () => {
      if (open) throw refused;
    },
  });
  expect(guarded.kind).toBe('s3');
  expect(guarded.localPath).toBeUndefined();
  await guarded.put('k', Readable.from(['x']));
  await guarded.get('k');
  await guarded.head('k');
  await guarded.delete('k');
  await guarded.deletePrefix('p/');
  await guarded.signUpload('k', { expiresInSeconds: 1, maxBytes: 1 });
  await guarded.signDownload('k', { expiresInSeconds: 1 });
  expect(ran).toHaveLength(5);
  expect(inner.calls).toEqual(['put', 'get', 'head', 'delete', 'deletePrefix', 'signUpload', 'signDownload']);
  open = true;
  const body = Readable.from(['x']);
  await expect(guarded.put('k', body)).rejects.toBe(refused);
  expect(body.destroyed).toBe(true);
  await expect(guarded.signUpload('k', { expiresInSeconds: 1, maxBytes: 1 })).rejects.toBe(refused);
  await expect(guarded.signDownload('k', { expiresInSeconds: 1 })).rejects.toBe(refused);
  expect(inner.calls).toHaveLength(7);
});

test('which errors are outages', () => {
  const sdk = (name: string, status?: number) =>
    Object.assign(new Error(name), { name, $metadata: status ? { httpStatusCode: status } : {} });
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED', $metadata: { attempts: 3 } });
  expect(isBlobStoreOutage(refused)).toBe(true);
  expect(isBlobStoreOutage(new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:9000'))).toBe(true);
  expect(isBlobStoreOutage(sdk('TimeoutError'))).toBe(true);
  expect(isBlobStoreOutage(sdk('InternalError', 500))).toBe(true);
  expect(isBlobStoreOutage(sdk('SlowDown', 503))).toBe(true);
  expect(isBlobStoreOutage(new AggregateError([refused]))).toBe(true);
  expect(isBlobStoreOutage(sdk('NoSuchKey', 404))).toBe(false);
  expect(isBlobStoreOutage(sdk('AccessDenied', 403))).toBe(false);
  expect(isBlobStoreOutage(sdk('PreconditionFailed', 412))).toBe(false);
  expect(isBlobStoreOutage(new BlobNotFoundError('k'))).toBe(false);
  expect(isBlobStoreOutage(new BlobTooLargeError(2, 1))).toBe(false);
  expect(isBlobStoreOutage(new BlobRangeError('k', 5))).toBe(false);
  expect(isBlobStoreOutage(new Error('bug'))).toBe(false);
});
