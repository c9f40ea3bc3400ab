// The transfer bench's reference peer (tools/bench/native/zero-copy-http.c): an HTTP server and
// client that move bytes with sendfile/splice only, compiled with cc into the bench's work
// directory. With it the bench can say what any server could reach here with curl as the client,
// and what the service reaches once the client is out of the way.
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startListening } from './load.js';

const SOURCE = join(import.meta.dirname, '..', '..', 'native', 'zero-copy-http.c');

export interface ZeroCopy {
  /** Serves `getFile` to GETs and writes PUT bodies to `putFile` (fsynced before the 200). */
  serve(getFile: string, putFile: string): Promise<{ url: string; stop(): Promise<void> }>;
  get(url: string, out: string): Promise<void>;
  put(url: string, headers: Record<string, string>, file: string): Promise<void>;
}

/** Builds the peer into `dir`; undefined (with the reason logged) when there is no C compiler. */
export function buildZeroCopy(dir: string, log: (line: string) => void): ZeroCopy | undefined {
  const bin = join(dir, 'zero-copy-http');
  const cc = process.env.CC || 'cc';
  const built = spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-Werror', '-o', bin, SOURCE], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (built.status !== 0) {
    log(`transfer: no zero-copy reference (${cc}: ${built.error?.message ?? String(built.stderr).trim()})`);
    return undefined;
  }
  const run = (args: string[]) =>
    new Promise<void>((resolve, reject) =>
      execFile(bin, args, (err, _out, stderr) => (err ? reject(new Error(`${bin} ${args[0]}: ${stderr || err.message}`)) : resolve())),
    );
  return {
    serve: (getFile, putFile) => startListening(bin, ['serve', getFile, putFile], (port) => `http://127.0.0.1:${port}/`),
    get: (url, out) => run(['get', ...target(url), out]),
    put: (url, headers, file) => run(['put', ...target(url), file, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)]),
  };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost']);

/** Port and request target of a loopback http URL (the peer connects to 127.0.0.1 only). */
export function target(url: string): [string, string] {
  const u = new URL(url);
  if (u.protocol !== 'http:' || !LOOPBACK.has(u.hostname)) throw new Error(`zero-copy peer: not an http URL on 127.0.0.1: ${url}`);
  return [u.port || '80', `${u.pathname.slice(1)}${u.search}`];
}
