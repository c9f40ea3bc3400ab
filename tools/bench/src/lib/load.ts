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
  /** Stop after this many requests instead (durationSec still caps the run). */
  amount?: number;
  /** Requests per second across all connections (default: as fast as possible). */
  overallRate?: number;
  /** Authorization values used in turn, one per request. */
  authorizations?: string[];
}

export async function load(opts: LoadOptions): Promise<LoadResult> {
  const keys = opts.authorizations;
  let next = 0;
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.durationSec,
    ...(opts.amount ? { amount: opts.amount } : {}),
    ...(opts.overallRate ? { overallRate: Math.max(1, Math.round(opts.overallRate)) } : {}),
    // At full speed, a fixed sequence of requests, one per key, that each connection cycles
    // through: autocannon builds each once, so turning through keys costs it nothing (rebuilding
    // every request in setupRequest took a third of its capacity and skewed the comparison). At a
    // set rate that sequence makes autocannon 8 burst (p99 185 ms against bare hello-world, rate
    // overshot), so there each request gets its key in setupRequest; the tool has room then.
    requests: !keys
      ? undefined
      : opts.overallRate
        ? [
            {
              method: 'GET',
              setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, authorization: keys[next++ % keys.length] } }),
            },
          ]
        : keys.map((authorization) => ({ method: 'GET', headers: { authorization } })),
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
export function startHello(): Promise<{ url: string; stop(): Promise<void> }> {
  return startBaselineServer('hello-server.js');
}

/** Starts one of tools/bench's baseline servers in its own process; it prints its URL. */
export function startBaselineServer(script: string, ...args: string[]): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  return startListening(process.execPath, [join(import.meta.dirname, '..', script), ...args], (line) => line);
}

/**
 * Starts a server process that prints one line once it listens; `toUrl` makes its URL of that
 * line. A process that exits before it prints fails the start instead of leaving it waiting.
 */
export async function startListening(
  bin: string,
  args: string[],
  toUrl: (line: string) => string,
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(bin, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit').then(([code, signal]) => {
    throw new Error(`${bin} ${args.join(' ')} exited (${signal ?? code}) before it listened`);
  });
  exited.catch(() => undefined); // only an exit while waiting for the line below counts
  const [chunk] = (await Promise.race([once(child.stdout!, 'data'), exited])) as [Buffer];
  return {
    url: toUrl(String(chunk).trim()),
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    },
  };
}
