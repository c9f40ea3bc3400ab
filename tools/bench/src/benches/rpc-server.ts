// The services' HTTP/2 server plumbing (startConnectServer: node:http2 with connect-node's
// handler) against Fastify with @connectrpc/connect-fastify (issue 45's choice), each in its own
// process serving the same router (a Jobs GetJob answering a completed job, the services'
// interceptors, health and reflection), loaded by the services' own client (one HTTP/2 session,
// Connect protocol, binary) with CONCURRENCY calls in flight: calls/s, p50 and p99 latency, and
// the server process's peak RSS, and how it closes while a caller keeps its session open (as
// every service client does between calls). Rounds alternate which plumbing goes first.
import { readFile } from 'node:fs/promises';
import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { createServiceClient } from '@media/platform';
import { startBaselineServer } from '../lib/load.js';
import { median, ms, perSec, ratio } from '../lib/stats.js';
import type { Context, Row } from '../lib/report.js';

const CONCURRENCY = 32;
const DURATION_MS = 4000;
const WARM_MS = 1000;
const KINDS = ['connect-node', 'connect-fastify'] as const;
type Kind = (typeof KINDS)[number];

interface Round {
  callsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  peakRssMb: number;
  /** SIGTERM to exit with the client's session still open and idle (capped at CLOSE_CAP_MS). */
  closeMs: number;
}

/** How long a server may take to close with an idle session before the round says so. */
const CLOSE_CAP_MS = 5000;

/** The peak resident set (VmHWM) of process `pid`, MB. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  return kb / 1024;
}

async function round(kind: Kind): Promise<Round> {
  const server = await startBaselineServer('rpc-server.js', kind);
  const jobs = createServiceClient(JobsService, server.url, { breaker: false });
  try {
    const latencies: number[] = [];
    const drive = async (until: number, record: boolean) => {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (performance.now() < until) {
            const t0 = performance.now();
            await jobs.client.getJob({ accountId: 'acc_0123456789abcdef', jobId: 'job_0123456789abcdef' });
            if (record) latencies.push(performance.now() - t0);
          }
        }),
      );
    };
    await drive(performance.now() + WARM_MS, false);
    const start = performance.now();
    await drive(start + DURATION_MS, true);
    const elapsed = performance.now() - start;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    const peakRssMb = await peakRss(server.pid);
    // A service's callers keep their session open between calls: the server must still close.
    const t0 = performance.now();
    const stopped = server.stop();
    const closeMs = await Promise.race([
      stopped.then(() => performance.now() - t0),
      new Promise<number>((r) => setTimeout(() => r(Number.POSITIVE_INFINITY), CLOSE_CAP_MS)),
    ]);
    return { callsPerSec: (latencies.length / elapsed) * 1000, p50Ms: at(0.5), p99Ms: at(0.99), peakRssMb, closeMs };
  } finally {
    jobs.close();
    await server.stop();
  }
}

const closeText = (x: number) => (Number.isFinite(x) ? ms(x) : `still open after ${CLOSE_CAP_MS / 1000} s`);

export async function rpcServer(ctx: Context): Promise<Row[]> {
  const rounds: Record<Kind, Round[]> = { 'connect-node': [], 'connect-fastify': [] };
  for (let i = 0; i < ctx.runs; i++) {
    const order = i % 2 === 0 ? KINDS : [...KINDS].reverse();
    for (const kind of order) rounds[kind].push(await round(kind));
  }
  const med = (kind: Kind, k: keyof Round) => median(rounds[kind].map((r) => r[k]));
  for (const kind of KINDS)
    ctx.log(
      `rpc server ${kind}: ${rounds[kind].map((r) => Math.round(r.callsPerSec))} calls/s, p99 ${rounds[kind].map((r) => r.p99Ms.toFixed(1))} ms, peak RSS ${rounds[kind].map((r) => r.peakRssMb.toFixed(0))} MB, close ${rounds[kind].map((r) => closeText(r.closeMs))}`,
    );
  const node = (k: keyof Round) => med('connect-node', k);
  const fastify = (k: keyof Round) => med('connect-fastify', k);
  return [
    {
      benchmark: `unary RPC (Jobs GetJob), ${CONCURRENCY} in flight on one HTTP/2 session: Fastify + connect-fastify against the services' server`,
      baseline: `${perSec(node('callsPerSec'))}, p50 ${ms(node('p50Ms'))}, p99 ${ms(node('p99Ms'))} (node:http2 + connect-node)`,
      service: `${perSec(fastify('callsPerSec'))}, p50 ${ms(fastify('p50Ms'))}, p99 ${ms(fastify('p99Ms'))}`,
      figure: `${ratio(fastify('callsPerSec') / node('callsPerSec'))} the calls/s`,
      target: 'record (docs/decisions/0010)',
      met: true,
    },
    {
      benchmark: "the same server process's peak RSS",
      baseline: `${node('peakRssMb').toFixed(0)} MB (node:http2 + connect-node)`,
      service: `${fastify('peakRssMb').toFixed(0)} MB`,
      figure: `${(fastify('peakRssMb') - node('peakRssMb')).toFixed(0)} MB more`,
      target: 'record (docs/decisions/0010)',
      met: true,
    },
  ];
}
