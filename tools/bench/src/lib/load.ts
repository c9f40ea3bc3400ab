// HTTP load with autocannon, the same tool and settings for the baseline and the service.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSec: number;
  p99Ms: number;
  p50Ms: number;
  total: number;
  failures: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSec: number;
  /** Requests per second across all connections (default: as fast as possible). */
  overallRate?: number;
  /** Authorization values used in turn, one per request. */
  authorizations?: string[];
}

export async function load(opts: LoadOptions): Promise<LoadResult> {
  let next = 0;
  const keys = opts.authorizations;
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.durationSec,
    ...(opts.overallRate ? { overallRate: Math.max(1, Math.round(opts.overallRate)) } : {}),
    requests: keys
      ? [{ method: 'GET', setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, authorization: keys[next++ % keys.length] } }) }]
      : undefined,
  });
  return {
    requestsPerSec: result.requests.average,
    p99Ms: result.latency.p99,
    p50Ms: result.latency.p50,
    total: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

/** Starts the bare Fastify baseline in its own process. */
export async function startHello(): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [join(import.meta.dirname, '..', 'hello-server.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return {
    url: String(chunk).trim(),
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}
