// uploadFile with `resume` on the local-disk upload URL (tus) through a loopback proxy that drops
// the connection once, mid-PATCH: the same call continues from the offset the service kept (a
// HEAD, then a PATCH from there), sends the rest only (counted at the proxy), and the file is
// listed and byte-identical. The proxy stands in for a flaky network between client and Storage.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaClient, type RegisteredFile } from '@media/client';
import { fileUrlStorage, type ResumeEvent, uploadFile } from '@media/client/node';
import { startTestStack, type TestStack } from '@media/stack/testing';

const SIZE = 20 * 1024 * 1024;
let stack: TestStack;
let media: MediaClient;
let dir: string;
let proxy: Server;
const sockets = new Set<Socket>();

/** What went through the proxy towards the service. */
const seen = { bytes: 0, dropped: -1, patchOffsets: [] as number[] };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-node-resume-'));
  stack = await startTestStack();
  const { key } = await stack.newAccount();
  media = new MediaClient({ baseUrl: stack.gatewayUrl, apiKey: key });
}, 60_000);
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Forwards to `target`; cuts both sides once `dropAfter` bytes went up. */
function startProxy(target: URL, dropAfter: number): Promise<number> {
  // Read now: the caller then points `target` at the proxy.
  const origin = target.host;
  const port = Number(target.port);
  const host = target.hostname === 'localhost' ? '127.0.0.1' : target.hostname;
  proxy = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      seen.bytes += chunk.length;
      const head = chunk.subarray(0, 2048).toString('latin1');
      const offset = /^PATCH [^\r\n]+\r\n(?:[^\r\n]+\r\n)*?upload-offset: *(\d+)\r\n/im.exec(head);
      if (offset) seen.patchOffsets.push(Number(offset[1]));
      if (seen.dropped < 0 && seen.bytes > dropAfter) {
        seen.dropped = seen.bytes;
        client.destroy();
        upstream.destroy();
      }
    });
    client.pipe(upstream);
    // The service's answers name its own address (tus's Location): name the proxy's instead.
    upstream.on('data', (chunk: Buffer) => {
      client.write(Buffer.from(chunk.toString('latin1').replaceAll(origin, `127.0.0.1:${listening}`), 'latin1'));
    });
  });
  let listening = 0;
  return new Promise((resolve) =>
    proxy.listen(0, '127.0.0.1', () => {
      listening = (proxy.address() as { port: number }).port;
      resolve(listening);
    }),
  );
}

test('a connection dropped mid-upload: the same call continues from the offset the service kept', async () => {
  const data = randomBytes(SIZE);
  await writeFile(join(dir, 'big.bin'), data);
  // The upload URL handed out, sent through the proxy instead (its signature does not name the host).
  let port = 0;
  const viaProxy = {
    register: async (name: string, dirId?: string) => {
      const registered = await media.register(name, dirId);
      const url = new URL(registered.upload!.url!);
      port ||= await startProxy(url, SIZE * 0.4);
      url.host = `127.0.0.1:${port}`;
      return { ...registered, upload: { ...registered.upload!, url: url.toString() } } as RegisteredFile;
    },
  } as unknown as MediaClient;
  const events: ResumeEvent['kind'][] = [];
  const urlStorage = await fileUrlStorage(join(dir, 'tus-uploads.json'));

  const { file } = await uploadFile(viaProxy, join(dir, 'big.bin'), {
    resume: { urlStorage, scope: 'test' },
    onResume: (e) => events.push(e.kind),
  });

  expect(seen.dropped).toBeGreaterThan(0);
  // Only that it can be continued (said again when the service moves its expiry): no restart.
  expect(new Set(events)).toEqual(new Set(['resumable']));
  // The first PATCH from 0; after the drop, one from what the service kept (not 0, not past the cut).
  expect(seen.patchOffsets[0]).toBe(0);
  expect(seen.patchOffsets).toHaveLength(2);
  const resumedAt = seen.patchOffsets[1]!;
  expect(resumedAt).toBeGreaterThan(0);
  expect(resumedAt).toBeLessThanOrEqual(seen.dropped);
  // Bytes sent in all: up to the cut, then the rest from the service's offset (and headers).
  expect(seen.bytes).toBeLessThan(seen.dropped + (SIZE - resumedAt) + 64 * 1024);
  expect(seen.bytes).toBeLessThan(SIZE + seen.dropped);

  expect((await media.listFiles(file.dir_id)).files.map((f: { file_name: string }) => f.file_name)).toEqual(['big.bin']);
  const { download } = await media.downloadUrl(file.dir_id, file.file_name);
  const got = Buffer.from(await (await fetch(download.url)).arrayBuffer());
  expect(createHash('sha256').update(got).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
}, 120_000);
