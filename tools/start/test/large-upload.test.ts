// Issue "Storage": 1 GB through the signed upload URL and back through the signed download URL,
// while the service process (npm start: Storage among the others) grows by less than 64 MB.
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { spawnStack, type Spawned } from '@media/testkit';

const SIZE = 1_000_000_000;
const CHUNK = 1 << 20;

let stack: Spawned;
beforeAll(async () => {
  stack = await spawnStack();
});
afterAll(() => stack?.stop());

function source(hash: ReturnType<typeof createHash>): Readable {
  const block = randomBytes(CHUNK);
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= SIZE) return void this.push(null);
      const n = Math.min(CHUNK, SIZE - sent);
      block.writeUInt32LE(sent / CHUNK, 0); // every chunk differs: a misplaced one changes the hash
      const chunk = Buffer.from(block.subarray(0, n));
      sent += n;
      hash.update(chunk);
      this.push(chunk);
    },
  });
}

test('1 GB signed PUT then GET: byte-identical, service RSS growth < 64 MB', async () => {
  const { account_id } = await stack.admin('account', 'create');
  const { authorization } = await stack.admin('key', 'create', '--account', String(account_id), '--name', 'big');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: String(authorization), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Record<string, any>;
  };
  const registered = await call('POST', '/file', { file_name: 'big.bin' });
  const baseline = await stack.rss();
  let peak = baseline;
  const sampler = setInterval(
    () =>
      void stack.rss().then(
        (r) => (peak = Math.max(peak, r)),
        () => undefined,
      ),
    25,
  );
  try {
    const sent = createHash('sha256');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        registered.upload.url,
        { method: 'PUT', headers: { ...registered.upload.headers, 'content-length': String(SIZE) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      source(sent).pipe(req);
    });
    expect(status).toBe(200);
    const info = await call('GET', `/file/${registered.file.file_path}`);
    expect(info.file_info).toEqual({ file_path: registered.file.file_path, file_type: null, file_size: SIZE });

    const dl = await call('GET', `/file/download/${registered.file.file_path}`);
    const received = createHash('sha256');
    const length = await new Promise<number>((resolve, reject) => {
      request(dl.download.url, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => {
          n += c.length;
          received.update(c);
        });
        res.on('end', () => resolve(n));
        res.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    expect(length).toBe(SIZE);
    expect(received.digest('hex')).toBe(sent.digest('hex'));
  } finally {
    clearInterval(sampler);
  }
  const growthMb = (peak - baseline) / 1e6;
  process.stderr.write(
    `1 GB signed PUT + GET: service RSS ${(baseline / 1e6).toFixed(0)} MB -> peak ${(peak / 1e6).toFixed(0)} MB (growth ${growthMb.toFixed(1)} MB)\n`,
  );
  expect(growthMb).toBeLessThan(64);
}, 240_000);
