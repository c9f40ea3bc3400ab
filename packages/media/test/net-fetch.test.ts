// fetchToFile against a real HTTPS server on 127.0.0.2 (allow-listed as "public") with canaries on
// 127.0.0.1 (and ::1) that must never see a connection: every refusal happens before connecting.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { DomainError } from '@media/platform';
import { type CanaryServer, type TestHttpsServer, startCanaryServer, startHttpsServer, tempDir } from '@media/testkit';
import { type FetchToFileOptions, fetchToFile, parseCidrList } from '../src/net/index.js';
import { canListen, fakeResolver, rejection } from './net-helpers.js';

const HAS_V6 = await canListen('::1');
const BIG = randomBytes(3 * 1024 * 1024 + 17);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let server: TestHttpsServer;
let dir: { path: string; remove: () => Promise<void> };
const canaries: CanaryServer[] = [];
let canary: CanaryServer; // 127.0.0.1, own port
let canary6: CanaryServer | undefined; // ::1, own port
const seen: string[] = [];

function handler(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://x');
  seen.push(url.pathname + url.search);
  const [, route, arg] = url.pathname.split('/');
  const redirect = (location: string) => {
    res.writeHead(302, { location });
    res.end();
  };
  switch (route) {
    case 'big':
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': BIG.length });
      res.end(BIG);
      return;
    case 'chain': // /chain/N: N relative redirects, then a small body
      if (Number(arg) > 0) redirect(`/chain/${Number(arg) - 1}`);
      else res.end('done');
      return;
    case 'abs-chain': // absolute redirects by name: each hop is resolved again
      if (Number(arg) > 0) redirect(`https://files.test:${server.port}/abs-chain/${Number(arg) - 1}`);
      else res.end('done');
      return;
    case 'to':
      redirect(url.searchParams.get('loc')!);
      return;
    case 'no-location':
      res.writeHead(302);
      res.end();
      return;
    case 'chunked': {
      // No Content-Length: the size is only known by counting.
      let left = Number(url.searchParams.get('n'));
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 7);
      const pump = () => {
        while (left > 0) {
          const part = chunk.subarray(0, Math.min(left, chunk.length));
          left -= part.length;
          if (!res.write(part)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    case 'declared-big': // headers promise 1 GB, then nothing: a client reading the body would hang
      res.writeHead(200, { 'content-length': '1000000000' });
      res.flushHeaders();
      return;
    case 'hang':
      return;
    case 'trickle': {
      // 10 bytes every 50 ms of a declared 1 MB: never idle, far too slow
      res.writeHead(200, { 'content-length': String(1024 * 1024) });
      const drip = setInterval(() => res.write('0123456789'), 50);
      res.on('close', () => clearInterval(drip));
      return;
    }
    case 'status':
      res.writeHead(Number(arg));
      res.end();
      return;
    default:
      res.writeHead(404);
      res.end();
  }
}

const resolver = fakeResolver({
  'public.test': ['127.0.0.2'],
  'files.test': ['127.0.0.2'],
  'other.example': ['127.0.0.2'], // allowed address, but not a name on the certificate
  'evil.test': ['127.0.0.1'],
  'evil6.test': ['::1'],
  'mixed.test': ['127.0.0.2', '127.0.0.1'],
  // DNS rebinding: public at check time, loopback for anyone who asks again.
  'rebind.test': (call) => (call === 1 ? ['127.0.0.2'] : ['127.0.0.1']),
  localhost: ['127.0.0.1'],
});

function opts(extra: Partial<FetchToFileOptions> = {}): FetchToFileOptions {
  return { allowlist: parseCidrList('127.0.0.2/32'), resolver, ca: server.ca, timeoutMs: 20_000, ...extra };
}

let n = 0;
const dest = () => {
  n += 1;
  return join(dir.path, `file-${n}.bin`);
};

beforeAll(async () => {
  server = await startHttpsServer({ host: '127.0.0.2', handler });
  dir = await tempDir('media-net-fetch-');
  canary = await startCanaryServer('127.0.0.1');
  // Same port as the HTTPS server but on 127.0.0.1: catches a connection to the wrong address.
  canaries.push(canary, await startCanaryServer('127.0.0.1', server.port));
  if (HAS_V6) {
    canary6 = await startCanaryServer('::1');
    canaries.push(canary6, await startCanaryServer('::1', server.port));
  }
});

afterAll(async () => {
  await Promise.all([server?.stop(), ...canaries.map((c) => c.stop())]);
  await dir?.remove();
});

afterEach(async () => {
  // The invariant of this file: nothing ever reached a non-allow-listed address, and no partial
  // file was left behind.
  expect(canaries.map((c) => c.connections)).toEqual(canaries.map(() => 0));
  expect((await readdir(dir.path)).filter((f) => f.includes('.part-'))).toEqual([]);
});

/** A 400 with no file left; unless `contacts`, the HTTPS server saw no new connection either. */
async function refused400(url: string, o = opts(), contacts = true): Promise<DomainError> {
  const before = server.connections;
  const path = dest();
  const err = await rejection(fetchToFile(url, path, o));
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).status).toBe(400);
  expect(existsSync(path)).toBe(false);
  if (!contacts) expect(server.connections).toBe(before);
  return err as DomainError;
}

describe('a URL that trickles', () => {
  test('is cut under the rate floor, a 400 naming the rate, nothing left', async () => {
    const err = await refused400(`https://public.test:${server.port}/trickle`, opts({ minBytesPerSec: 1000, rateWindowMs: 300 }));
    expect(err.message).toMatch(
      /^URL input could not be fetched: https:\/\/public\.test:\d+\/trickle sent \d+ bytes a second, under the minimum of 1000 \(averaged over a minute\)$/,
    );
  });

  test('a fast body is not affected by the floor', async () => {
    const path = dest();
    const got = await fetchToFile(`https://public.test:${server.port}/big`, path, opts({ minBytesPerSec: 1000, rateWindowMs: 300 }));
    expect(got.size).toBe(BIG.length);
  });
});

describe('fetchToFile downloads', () => {
  it('a few MB byte-identically, streamed to the file', async () => {
    const path = dest();
    const r = await fetchToFile(`https://public.test:${server.port}/big`, path, opts());
    expect(r).toEqual({ size: BIG.length, contentType: 'video/mp4', finalUrl: `https://public.test:${server.port}/big` });
    expect(sha256(await readFile(path))).toBe(sha256(BIG));
  });

  it('from an allow-listed IP literal (certificate checked against the IP)', async () => {
    const path = dest();
    expect((await fetchToFile(`https://127.0.0.2:${server.port}/big`, path, opts())).size).toBe(BIG.length);
  });

  it('from a trailing-dot name (TLS name without the dot)', async () => {
    expect((await fetchToFile(`https://public.test.:${server.port}/chain/0`, dest(), opts())).size).toBe(4);
  });

  it('a chunked body of exactly maxBytes', async () => {
    const r = await fetchToFile(`https://public.test:${server.port}/chunked?n=1000000`, dest(), opts({ maxBytes: 1_000_000 }));
    expect(r.size).toBe(1_000_000);
  });

  it('after 5 redirects (relative), the most allowed', async () => {
    const r = await fetchToFile(`https://public.test:${server.port}/chain/5`, dest(), opts());
    expect(r.finalUrl).toBe(`https://public.test:${server.port}/chain/0`);
  });

  it('after absolute redirects, checking and resolving each hop again', async () => {
    const calls = resolver.calls.length;
    const r = await fetchToFile(`https://files.test:${server.port}/abs-chain/3`, dest(), opts());
    expect(r.finalUrl).toBe(`https://files.test:${server.port}/abs-chain/0`);
    expect(resolver.calls.length - calls).toBe(4);
  });
});

describe('fetchToFile pins the connection to the checked address', () => {
  it('a rebinding name is resolved once, and the fetch still reaches 127.0.0.2', async () => {
    const before = resolver.calls.filter((c) => c === 'rebind.test').length;
    expect(before).toBe(0);
    const served = server.connections;
    const r = await fetchToFile(`https://rebind.test:${server.port}/big`, dest(), opts());
    expect(r.size).toBe(BIG.length);
    expect(server.connections).toBe(served + 1);
    expect(resolver.calls.filter((c) => c === 'rebind.test')).toHaveLength(1);
    // A second lookup would have answered loopback (127.0.0.1:<same port> is a canary).
    expect(await resolver('rebind.test')).toEqual(['127.0.0.1']);
  });

  it('a redirect to the rebinding name is resolved again and refused', async () => {
    const err = await refused400(
      `https://public.test:${server.port}/to?loc=${encodeURIComponent(`https://rebind.test:${server.port}/big`)}`,
    );
    expect(err.message).toBe(
      `Redirect to https://rebind.test:${server.port}/big refused: URL host resolves to a non-public address (127.0.0.1: loopback)`,
    );
  });
});

describe('fetchToFile refuses before connecting', () => {
  const targets = () => [
    `https://127.0.0.1:${canary.port}/`,
    `https://localhost:${canary.port}/`,
    `https://evil.test:${canary.port}/`,
    `https://mixed.test:${server.port}/big`,
    `https://2130706433:${canary.port}/`,
    `https://0x7f.1:${canary.port}/`,
    `https://[::ffff:127.0.0.1]:${canary.port}/`,
    `http://127.0.0.2:${server.port}/big`,
    `http://public.test:${server.port}/big`,
    `https://user:pw@public.test:${server.port}/big`,
    ...(HAS_V6 ? [`https://[::1]:${canary6!.port}/`, `https://evil6.test:${canary6!.port}/`] : []),
  ];

  it('URLs aimed at loopback, mixed answers, http and credentials', async () => {
    for (const url of targets()) {
      const err = await refused400(url, opts(), false);
      expect(err.message).toMatch(/^URL (must|host)/);
    }
  });

  it('the same targets as redirects, naming the redirect', async () => {
    for (const target of targets()) {
      const served = seen.length;
      const err = await refused400(`https://public.test:${server.port}/to?loc=${encodeURIComponent(target)}`);
      expect(err.message).toMatch(/^Redirect to .+ refused: URL (must|host)/);
      expect(seen.length).toBe(served + 1); // only the redirecting hop reached the server
    }
  });

  it('a 6th redirect, without contacting its target', async () => {
    const err = await refused400(`https://public.test:${server.port}/chain/6`);
    expect(err.message).toBe('Too many redirects (more than 5)');
    expect(seen.at(-1)).toBe('/chain/1');
  });

  it('a redirect limit of 0 when asked', async () => {
    const err = await refused400(`https://public.test:${server.port}/chain/1`, opts({ maxRedirects: 0 }));
    expect(err.message).toBe('Too many redirects (more than 0)');
  });
});

describe('control', () => {
  it('a canary does count connections (so the zero counts above mean something)', async () => {
    const probe = await startCanaryServer('127.0.0.1');
    await new Promise<void>((resolve) => {
      const socket = connect(probe.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.on('close', () => resolve());
    });
    expect(probe.connections).toBe(1);
    await probe.stop();
  });
});

describe('fetchToFile fails cleanly', () => {
  it('403 on a Content-Length over maxBytes, before reading the body', async () => {
    const path = dest();
    const err = await rejection(fetchToFile(`https://public.test:${server.port}/declared-big`, path, opts({ maxBytes: 1_000_000 })));
    expect(err).toBeInstanceOf(DomainError);
    expect(err.status).toBe(403);
    // The server sends no body: a client reading it would have failed on its 20 s timeout (a 400), not this 403.
    expect(err.message).toBe("File 'declared-big' size (1000.00 MB) exceeds max file size limit of 5 GB.");
    expect(existsSync(path)).toBe(false);
  });

  it('403 on a chunked body over maxBytes, leaving no file', async () => {
    const path = dest();
    const err = await rejection(
      fetchToFile(`https://public.test:${server.port}/chunked?n=3000000`, path, opts({ maxBytes: 1_000_000, fileNameForErrors: 'in.mp4' })),
    );
    expect(err.status).toBe(403);
    expect(err.message).toMatch(/^File 'in\.mp4' size \(1\.\d\d MB\) exceeds max file size limit of 5 GB\.$/);
    expect(existsSync(path)).toBe(false);
  });

  it('400 when the server never answers within the total timeout', async () => {
    // The text names the deadline that expired: this call's 0.5 s, not the default's 20 s.
    const err = await refused400(`https://public.test:${server.port}/hang`, opts({ timeoutMs: 500 }));
    expect(err.message).toBe('URL input could not be fetched: timed out after 0.5 s');
  }, 10_000);

  it('rejects with the caller signal reason when cancelled', async () => {
    const ctrl = new AbortController();
    const p = fetchToFile(`https://public.test:${server.port}/hang`, dest(), opts({ signal: ctrl.signal }));
    setTimeout(() => ctrl.abort(new Error('job cancelled')), 100);
    expect((await rejection(p)).message).toBe('job cancelled');
  });

  it('400 on a non-2xx answer', async () => {
    const err = await refused400(`https://public.test:${server.port}/status/404`);
    expect(err.message).toBe(`URL input could not be fetched: HTTP 404 from https://public.test:${server.port}/status/404`);
  });

  it('400 on a redirect without Location', async () => {
    const err = await refused400(`https://public.test:${server.port}/no-location`);
    expect(err.message).toBe('URL input could not be fetched: HTTP 302 redirect without one Location header');
  });

  it('400 when the certificate is not trusted (verification is on)', async () => {
    const err = await refused400(`https://public.test:${server.port}/big`, opts({ ca: undefined }));
    expect(err.message).toMatch(/^URL input could not be fetched: TLS failed: certificate not accepted \(/);
  });

  it('400 when the certificate does not name the host (SNI/hostname checked, not the IP)', async () => {
    const err = await refused400(`https://other.example:${server.port}/big`);
    expect(err.message).toBe('URL input could not be fetched: TLS failed: certificate not accepted (ERR_TLS_CERT_ALTNAME_INVALID)');
  });

  it('400 for an unknown host', async () => {
    const err = await refused400(`https://unknown.test:${server.port}/big`, opts(), false);
    expect(err.message).toBe('URL host could not be resolved: unknown.test');
  });
});
