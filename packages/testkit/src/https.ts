// Loopback-only HTTPS test server (self-signed certificate made at test time) and a "canary" TCP
// server that only counts connection attempts: SSRF tests assert the canary saw nothing.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fromUnrelatedProcess } from './socket-owner.js';

const run = promisify(execFile);
const OPENSSL = process.env.OPENSSL_BIN ?? '/usr/bin/openssl';

export interface TestCertificate {
  key: string;
  cert: string;
}

let certPromise: Promise<TestCertificate> | undefined;

/**
 * Names the test certificate is valid for. Node refuses `*.tld` wildcards, so `*.test` alone would
 * match nothing: the usual fake-resolver names are listed one by one, plus `*.public.test`.
 */
export const TEST_CERT_NAMES = [
  'localhost',
  '*.test',
  'public.test',
  'files.test',
  'redirect.test',
  'webhook.test',
  'rebind.test',
  'mixed.test',
  'evil.test',
  '*.public.test',
];

/**
 * One self-signed P-256 certificate per test process, valid for TEST_CERT_NAMES and the loopback
 * addresses tests use. The certificate is its own CA: pass `cert` as the client's `ca`.
 */
export function testCertificate(): Promise<TestCertificate> {
  certPromise ??= makeCertificate();
  return certPromise;
}

async function makeCertificate(): Promise<TestCertificate> {
  const dir = await mkdtemp(join(tmpdir(), 'media-cert-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    await run(OPENSSL, [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      `subjectAltName=${TEST_CERT_NAMES.map((n) => `DNS:${n}`).join(',')},IP:127.0.0.1,IP:127.0.0.2,IP:::1`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-keyout',
      keyPath,
      '-out',
      certPath,
    ]);
    return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `[::1]` for IPv6 hosts, as URLs need. */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function listen(server: Server, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address();
      if (addr === null || typeof addr === 'string') reject(new Error('server has no TCP address'));
      else resolve(addr.port);
    });
  });
}

/** Close the listener and cut open sockets so `stop()` never waits on a keep-alive or hung client. */
function stopper(server: Server, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

export interface TestHttpsServer {
  url: string;
  port: number;
  /** PEM of the self-signed certificate: pass it as `ca`. */
  ca: string;
  /** TCP connections accepted so far. */
  readonly connections: number;
  stop(): Promise<void>;
}

export async function startHttpsServer(opts: {
  host: string;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}): Promise<TestHttpsServer> {
  const { key, cert } = await testCertificate();
  const server = createHttpsServer({ key, cert }, opts.handler);
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that aborts mid-handshake is normal in these tests.
  server.on('tlsClientError', () => {});
  const port = await listen(server, opts.host);
  return {
    url: `https://${urlHost(opts.host)}:${port}`,
    port,
    ca: cert,
    get connections() {
      return connections;
    },
    stop: stopper(server, sockets),
  };
}

export interface CanaryServer {
  host: string;
  port: number;
  /** e.g. https://127.0.0.1:PORT — a URL that must never be contacted. */
  url: string;
  /** Connection attempts seen from this process or its children (each is closed at once). */
  readonly connections: number;
  /** Connections from unrelated processes (other test suites), closed and not counted above. */
  readonly strays: number;
  stop(): Promise<void>;
}

/**
 * A TCP listener that counts and drops every connection: proof that nothing reached it. Give a
 * port to shadow another server's port on a different address (e.g. the HTTPS server's port on
 * 127.0.0.1 when it listens on 127.0.0.2): a connection to the wrong address then lands here.
 */
export async function startCanaryServer(host: string, port = 0): Promise<CanaryServer> {
  let connections = 0;
  let strays = 0;
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    // Checked before the close, while the client's end still exists to be looked up.
    if (fromUnrelatedProcess(socket.remotePort!, socket.localPort!)) strays += 1;
    else connections += 1;
    socket.on('error', () => {});
    socket.destroy();
  });
  const bound = await listen(server, host, port);
  return {
    host,
    port: bound,
    url: `https://${urlHost(host)}:${bound}`,
    get connections() {
      return connections;
    },
    get strays() {
      return strays;
    },
    stop: stopper(server, sockets),
  };
}
