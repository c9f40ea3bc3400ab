// The one behaviour both backends must show. local.test.ts and s3.test.ts run it; the backend
// specific files test what only one of them has (the signed-URL handler, multipart, paging).
import {
  BlobNotFoundError,
  BlobRangeError,
  BlobTooLargeError,
  InvalidBlobKeyError,
  sniffContentType,
  type BlobStore,
} from '../src/index.js';
import { waitFor } from '@media/testkit';
import { PNG_HEAD, randomData, readAll, sha256, streamOf } from './helpers.js';

export interface ContractContext {
  store: BlobStore;
  teardown(): Promise<void>;
}

export interface ContractCapabilities {
  /** The URL server checks signatures (our handler does; s3rver does not check V4 signatures). */
  verifiesSignatures: boolean;
  /**
   * Key segments near 255 characters work (disk: chunked names; S3: keys up to 1024 bytes).
   * s3rver keeps each segment as a file name plus a suffix and crashes on long ones.
   */
  longSegments: boolean;
}

export function runBlobStoreContract(name: string, setup: () => Promise<ContractContext>, capabilities: ContractCapabilities): void {
  describe(`BlobStore contract: ${name}`, () => {
    let ctx: ContractContext;
    let store: BlobStore;
    let n = 0;
    // Every test works in its own "directory" so none sees another's blobs.
    const dir = () => `acc_contract/dir_${++n}`;

    beforeAll(async () => {
      ctx = await setup();
      store = ctx.store;
    });
    afterAll(async () => {
      await ctx?.teardown();
    });

    it('stores, reads, heads and deletes a multi-megabyte blob byte for byte', async () => {
      const key = `${dir()}/video.mp4`;
      const data = randomData(3 * 1024 * 1024 + 17);
      expect(await store.put(key, streamOf(data))).toEqual({ size: data.length });
      expect((await store.head(key))?.size).toBe(data.length);
      expect(sha256(await readAll(await store.get(key)))).toBe(sha256(data));
      await store.delete(key);
      expect(await store.head(key)).toBeNull();
      await store.delete(key); // idempotent
    });

    it('replaces a blob on a second put', async () => {
      const key = `${dir()}/a.bin`;
      await store.put(key, streamOf(randomData(1000)));
      const second = randomData(500);
      await store.put(key, streamOf(second));
      expect(sha256(await readAll(await store.get(key)))).toBe(sha256(second));
    });

    it('reads inclusive byte ranges, clamps the end and refuses a start past the end', async () => {
      const key = `${dir()}/range.bin`;
      const data = randomData(100_000);
      await store.put(key, streamOf(data));
      expect((await readAll(await store.get(key, { start: 10, end: 19 }))).equals(data.subarray(10, 20))).toBe(true);
      expect((await readAll(await store.get(key, { start: 99_990 }))).equals(data.subarray(99_990))).toBe(true);
      expect((await readAll(await store.get(key, { start: 5, end: 10_000_000 }))).equals(data.subarray(5))).toBe(true);
      await expect(store.get(key, { start: 100_000 })).rejects.toBeInstanceOf(BlobRangeError);
      await expect(store.get(key, { start: 10, end: 9 })).rejects.toBeInstanceOf(BlobRangeError);
      await expect(store.get(key, { start: -1 })).rejects.toBeInstanceOf(BlobRangeError);
    });

    it('reports missing blobs as BlobNotFoundError and head null', async () => {
      const key = `${dir()}/missing.bin`;
      await expect(store.get(key)).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.get(key, { start: 0, end: 9 })).rejects.toBeInstanceOf(BlobNotFoundError);
      expect(await store.head(key)).toBeNull();
      await expect(store.delete(key)).resolves.toBeUndefined();
    });

    it('deletes by prefix: a whole directory, or names starting with a partial segment', async () => {
      const a = dir();
      const b = dir();
      for (const k of [`${a}/x`, `${a}/y`, `${a}/sub/z`, `${b}/file1`, `${b}/file2`, `${b}/other`, `${a}x/kept`]) {
        await store.put(k, streamOf(Buffer.from(k)));
      }
      expect(await store.deletePrefix(`${a}/`)).toBe(3);
      expect(await store.head(`${a}/x`)).toBeNull();
      expect(await store.head(`${a}/sub/z`)).toBeNull();
      expect((await store.head(`${a}x/kept`))?.size).toBe(`${a}x/kept`.length);
      expect(await store.deletePrefix(`${b}/file`)).toBe(2);
      expect(await store.head(`${b}/file1`)).toBeNull();
      expect(await store.head(`${b}/other`)).not.toBeNull();
      expect(await store.deletePrefix(`${a}/`)).toBe(0);
      // The directory can be used again after being deleted.
      await store.put(`${a}/x`, streamOf(Buffer.from('again')));
      expect((await store.head(`${a}/x`))?.size).toBe(5);
    });

    it('refuses a body beyond maxBytes, storing nothing and keeping what was there', async () => {
      const key = `${dir()}/big.bin`;
      await expect(store.put(key, streamOf(randomData(2_000_001)), { maxBytes: 2_000_000 })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(await store.head(key)).toBeNull();
      const before = randomData(10);
      await store.put(key, streamOf(before), { maxBytes: 10 }); // exactly the limit is fine
      await expect(store.put(key, streamOf(randomData(11)), { maxBytes: 10 })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect((await readAll(await store.get(key))).equals(before)).toBe(true);
    });

    it('keeps keys with Unicode, spaces and long names apart', async () => {
      const d = dir();
      const names = ['ünï cødé 文件 🎬.mp4', 'Video.MP4', 'video.mp4', '.hidden', 'a%2Fb', '~tilde'];
      names.push(...(capabilities.longSegments ? ['文'.repeat(255), 'x'.repeat(255)] : ['文'.repeat(60), 'x'.repeat(200)]));
      for (const [i, name] of names.entries()) await store.put(`${d}/${name}`, streamOf(Buffer.from(`blob ${i}`)));
      for (const [i, name] of names.entries()) {
        expect((await readAll(await store.get(`${d}/${name}`))).toString()).toBe(`blob ${i}`);
      }
      expect(await store.deletePrefix(`${d}/`)).toBe(names.length);
    });

    it('rejects keys that could escape or alias (.., empty segments, controls)', async () => {
      for (const key of ['', '../etc/passwd', 'a/../b', 'a//b', '/a', 'a/', 'a/./b', 'a\u0000b', 'a\nb']) {
        await expect(store.put(key, streamOf(Buffer.from('x')))).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.head(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.signUpload(key, { expiresInSeconds: 60, maxBytes: 10 })).rejects.toBeInstanceOf(InvalidBlobKeyError);
      }
      await expect(store.deletePrefix('')).rejects.toBeInstanceOf(InvalidBlobKeyError);
    });

    it('sniffs the media type from the first bytes only', async () => {
      const d = dir();
      await store.put(`${d}/image`, streamOf(Buffer.concat([PNG_HEAD, randomData(50_000)])));
      await store.put(`${d}/subs.srt`, streamOf(Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nHällo\n')));
      await store.put(`${d}/empty`, streamOf(Buffer.alloc(0)));
      await store.put(`${d}/noise`, streamOf(Buffer.alloc(5000, 0)));
      expect(await sniffContentType(store, `${d}/image`)).toBe('image/png');
      expect(await sniffContentType(store, `${d}/subs.srt`)).toBe('text/plain');
      expect(await sniffContentType(store, `${d}/empty`)).toBeNull();
      expect(await sniffContentType(store, `${d}/noise`)).toBeNull();
      await expect(sniffContentType(store, `${d}/missing`)).rejects.toBeInstanceOf(BlobNotFoundError);
    });

    it('uploads through a signed PUT URL and downloads the same bytes through a signed GET URL', async () => {
      const key = `${dir()}/clip ünï 🎬.mp4`;
      const data = randomData(2 * 1024 * 1024 + 3);
      const upload = await store.signUpload(key, { expiresInSeconds: 300, maxBytes: 5_000_000_000 });
      expect(upload).toMatchObject({ method: 'PUT', expiresInSeconds: 300 });
      const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: data });
      expect(put.status).toBe(200);
      await put.arrayBuffer();
      expect((await store.head(key))?.size).toBe(data.length);

      const download = await store.signDownload(key, { expiresInSeconds: 300, contentType: 'video/mp4', fileName: 'clip ünï 🎬.mp4' });
      expect(download.method).toBe('GET');
      const get = await fetch(download.url);
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toBe('video/mp4');
      expect(get.headers.get('content-disposition')).toContain(`filename*=UTF-8''clip%20%C3%BCn%C3%AF%20%F0%9F%8E%AC.mp4`);
      expect(sha256(new Uint8Array(await get.arrayBuffer()))).toBe(sha256(data));
    });

    it('refuses expired upload and download URLs with 403', async () => {
      const key = `${dir()}/expiring.bin`;
      await store.put(key, streamOf(Buffer.from('old')));
      const upload = await store.signUpload(key, { expiresInSeconds: 1, maxBytes: 100 });
      const download = await store.signDownload(key, { expiresInSeconds: 1 });
      // Both backends sign with one-second resolution: wait for the download's refusal (a GET
      // changes nothing). The upload was signed first, so it has expired by then too.
      await waitFor('the download URL to expire', async () => {
        const res = await fetch(download.url);
        await res.arrayBuffer();
        return res.status === 403;
      });
      const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: 'new' });
      expect(put.status).toBe(403);
      await put.arrayBuffer();
      const get = await fetch(download.url);
      expect(get.status).toBe(403);
      await get.arrayBuffer();
      expect((await readAll(await store.get(key))).toString()).toBe('old');
    });

    // s3rver accepts any V4 signature (real S3 does not), so this can only be shown locally.
    (capabilities.verifiesSignatures ? it : it.skip)('refuses URLs whose signature or signed fields were changed with 403', async () => {
      const key = `${dir()}/signed.bin`;
      await store.put(key, streamOf(Buffer.from('content')));
      const download = await store.signDownload(key, { expiresInSeconds: 300 });
      const forged = new URL(download.url);
      const sig = forged.searchParams.get('sig')!;
      forged.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
      const longer = new URL(download.url);
      longer.searchParams.set('expires', String(Number(longer.searchParams.get('expires')) + 3600));
      const other = new URL(download.url.replace('signed.bin', 'other.bin'));
      for (const url of [forged, longer, other]) {
        const res = await fetch(url);
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual({ ok: false, error: expect.stringMatching(/\.$/) });
      }
      const upload = await store.signUpload(key, { expiresInSeconds: 300, maxBytes: 10 });
      const bigger = new URL(upload.url);
      bigger.searchParams.set('max', '1000000');
      const res = await fetch(bigger, { method: 'PUT', body: 'x'.repeat(100) });
      expect(res.status).toBe(403);
      await res.arrayBuffer();
      expect((await readAll(await store.get(key))).toString()).toBe('content');
    });
  });
}
