// The signed-URL handler's HTTP behaviour: headers, ranges, methods and the Storage hooks.
import { BlobHttpError } from '../src/index.js';
import { PNG_HEAD, randomData, readAll, streamOf } from './helpers.js';
import { startLocalServer, type LocalServer } from './local-server.js';

let server: LocalServer;
let n = 0;
const key = (name: string) => `acc_h/dir_${++n}/${name}`;

beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  for (const name of Object.keys(server.hooks)) delete server.hooks[name as keyof typeof server.hooks];
});

async function stored(name: string, data: Buffer): Promise<string> {
  const k = key(name);
  await server.store.put(k, streamOf(data));
  return k;
}

describe('downloads', () => {
  const data = randomData(10_000);

  it('sends length, type, disposition and range support; HEAD sends the same without a body', async () => {
    const k = await stored('Ünïcode "name".mp4', data);
    const { url } = await server.store.signDownload(k, { expiresInSeconds: 60, contentType: 'video/mp4', fileName: 'Ünïcode "name".mp4' });
    for (const method of ['GET', 'HEAD']) {
      const res = await fetch(url, { method });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe('10000');
      expect(res.headers.get('content-type')).toBe('video/mp4');
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="_n_code _name_.mp4"; filename*=UTF-8''%C3%9Cn%C3%AFcode%20%22name%22.mp4`,
      );
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.equals(method === 'GET' ? data : Buffer.alloc(0))).toBe(true);
    }
  });

  it('defaults to application/octet-stream and the key file name', async () => {
    const k = await stored('plain.bin', data);
    const res = await fetch((await server.store.signDownload(k, { expiresInSeconds: 60 })).url);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="plain.bin"');
    await res.arrayBuffer();
  });

  it('answers single ranges with 206 and Content-Range, unsatisfiable ones with 416', async () => {
    const k = await stored('range.bin', data);
    const { url } = await server.store.signDownload(k, { expiresInSeconds: 60 });
    const cases: [string, number, string | null, Buffer | null][] = [
      ['bytes=0-99', 206, 'bytes 0-99/10000', data.subarray(0, 100)],
      ['bytes=9990-', 206, 'bytes 9990-9999/10000', data.subarray(9990)],
      ['bytes=-10', 206, 'bytes 9990-9999/10000', data.subarray(9990)],
      ['bytes=9000-20000', 206, 'bytes 9000-9999/10000', data.subarray(9000)],
      ['bytes=10000-', 416, 'bytes */10000', null],
      ['bytes=-0', 416, 'bytes */10000', null],
      ['bytes=0-1,5-6', 200, null, data], // multiple ranges: the whole body, as the RFC allows
      ['items=0-1', 200, null, data],
    ];
    for (const [range, status, contentRange, body] of cases) {
      const res = await fetch(url, { headers: { Range: range } });
      expect([range, res.status]).toEqual([range, status]);
      expect(res.headers.get('content-range')).toBe(contentRange);
      const got = Buffer.from(await res.arrayBuffer());
      if (body) {
        expect(got.equals(body)).toBe(true);
        expect(res.headers.get('content-length')).toBe(String(body.length));
      } else expect(JSON.parse(got.toString())).toEqual({ ok: false, error: expect.any(String) });
    }
  });

  it('lets beforeDownload refuse or override type and name', async () => {
    const k = await stored('hooked.bin', data);
    const { url } = await server.store.signDownload(k, { expiresInSeconds: 60, contentType: 'video/mp4' });
    server.hooks.beforeDownload = () => ({ contentType: 'audio/mpeg', fileName: 'song.mp3' });
    let res = await fetch(url);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="song.mp3"');
    await res.arrayBuffer();
    server.hooks.beforeDownload = () => {
      throw new BlobHttpError(404, 'File not found in directory');
    };
    res = await fetch(url);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ ok: false, error: 'File not found in directory' });
  });

  it('answers 404 for a signed URL whose blob is gone', async () => {
    const k = await stored('gone.bin', data);
    const { url } = await server.store.signDownload(k, { expiresInSeconds: 60 });
    await server.store.delete(k);
    const res = await fetch(url);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ ok: false, error: 'The file does not exist.' });
  });
});

describe('methods', () => {
  it('refuses a method the URL was not signed for with 403, unknown methods with 405', async () => {
    const k = await stored('m.bin', Buffer.from('original'));
    const download = await server.store.signDownload(k, { expiresInSeconds: 60 });
    const upload = await server.store.signUpload(k, { expiresInSeconds: 60, maxBytes: 100 });
    let res = await fetch(download.url, { method: 'PUT', body: 'overwritten' });
    expect(res.status).toBe(403);
    await res.arrayBuffer();
    res = await fetch(upload.url);
    expect(res.status).toBe(403);
    await res.arrayBuffer();
    res = await fetch(upload.url, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, PUT');
    await res.arrayBuffer();
    expect((await readAll(await server.store.get(k))).toString()).toBe('original');
  });
});

describe('uploads', () => {
  it('reports size and sniffed type to afterUpload', async () => {
    const k = key('picture');
    const seen: unknown[] = [];
    server.hooks.beforeUpload = (key, info) => void seen.push(['before', key, info]);
    server.hooks.afterUpload = (key, info) => void seen.push(['after', key, info]);
    const body = Buffer.concat([PNG_HEAD, randomData(1000)]);
    const { url } = await server.store.signUpload(k, { expiresInSeconds: 60, maxBytes: 5000 });
    const res = await fetch(url, { method: 'PUT', body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(seen).toEqual([
      ['before', k, { contentLength: body.length }],
      ['after', k, { size: body.length, contentType: 'image/png' }],
    ]);
  });

  it('refuses a second PUT through the hook, keeping the first upload', async () => {
    const k = key('once.bin');
    const used = new Set<string>();
    server.hooks.beforeUpload = (key) => {
      if (used.has(key)) throw new BlobHttpError(409, 'This upload URL has already been used.');
      used.add(key);
    };
    const { url } = await server.store.signUpload(k, { expiresInSeconds: 60, maxBytes: 100 });
    const first = await fetch(url, { method: 'PUT', body: 'first' });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const second = await fetch(url, { method: 'PUT', body: 'second' });
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({ ok: false, error: 'This upload URL has already been used.' });
    expect((await readAll(await server.store.get(k))).toString()).toBe('first');
  });

  it('removes the blob again when afterUpload fails', async () => {
    const k = key('unrecorded.bin');
    server.hooks.afterUpload = () => {
      throw new Error('database down');
    };
    const { url } = await server.store.signUpload(k, { expiresInSeconds: 60, maxBytes: 100 });
    const errors: unknown[] = [];
    server.hooks.onError = (err) => void errors.push(err);
    const res = await fetch(url, { method: 'PUT', body: 'data' });
    expect(res.status).toBe(500);
    expect(errors).toEqual([new Error('database down')]);
    expect(await res.json()).toEqual({ ok: false, error: expect.stringMatching(/\.$/) });
    expect(await server.store.head(k)).toBeNull();
  });
});
