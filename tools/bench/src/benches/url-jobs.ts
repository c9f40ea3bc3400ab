// Async jobs whose input is a URL on a server slower than the machine (a remote file): the
// service as shipped, which stages the next pending jobs' inputs while every slot is busy,
// against the same service with JOB_STAGE_AHEAD=0, where each job fetches its input only once it
// holds a slot. Same jobs, same server, alternating rounds; medians compared.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { startHttpsServer } from '@media/testkit';
import { median, perSec, ratio } from '../lib/stats.js';
import { api, startService } from '../lib/service.js';
import { waitForJobs } from './async-jobs.js';
import type { Context, Row } from '../lib/report.js';

const JOBS = 30;
/** The input server's pace: 100 Mbit/s, a remote file over a good link (loopback is far faster). */
const SERVE_BYTES_PER_SEC = 12.5e6;
const CHUNK = 256 * 1024;
const ROUNDS = 3;

/** Sends `bytes` at SERVE_BYTES_PER_SEC. */
async function paced(res: ServerResponse, bytes: Buffer): Promise<void> {
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length });
  const start = Date.now();
  for (let off = 0; off < bytes.length && !res.destroyed; off += CHUNK) {
    const wait = start + (off / SERVE_BYTES_PER_SEC) * 1000 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (!res.write(bytes.subarray(off, off + CHUNK))) await new Promise((r) => res.once('drain', r));
  }
  res.end();
}

export async function urlJobs(
  ctx: Context,
  clip: string,
  workerConcurrency: number,
  serviceEnv: Record<string, string> = {},
): Promise<Row> {
  const bytes = await readFile(clip);
  // 127.0.0.2: the service treats it as public only through URL_ALLOWLIST_CIDRS, set below.
  const server = await startHttpsServer({ host: '127.0.0.2', handler: (_req, res) => void paced(res, bytes) });
  const dir = await mkdtemp(join(ctx.workDir, 'url-jobs-'));
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, server.ca);
  const rates: Record<'ahead' | 'off', number[]> = { ahead: [], off: [] };
  try {
    const round = async (side: 'ahead' | 'off') => {
      const svc = await startService({
        ...serviceEnv,
        WORKER_CONCURRENCY: String(workerConcurrency),
        URL_ALLOWLIST_CIDRS: '127.0.0.2/32',
        URL_CA_FILE: caFile,
        ...(side === 'off' ? { JOB_STAGE_AHEAD: '0' } : {}),
      });
      try {
        const { authorizations } = await svc.account(2);
        const submit = api(svc.stack.baseUrl, authorizations[0]!);
        const poll = api(svc.stack.baseUrl, authorizations[1]!);
        const task = {
          inputs: [{ file_path: `https://127.0.0.2:${server.port}/clip.mp4` }],
          outputs: [{ file: 'thumb.jpg', options: ['-frames:v', '1'] }],
        };
        const started = Date.now();
        for (let j = 0; j < JOBS; j++) await submit('POST', '/ffmpeg/process/async', { task });
        await waitForJobs([poll], JOBS, 300_000, 200);
        const { jobs } = await poll('GET', `/jobs?limit=${JOBS}`);
        const notDone = jobs.filter((j: { status: string }) => j.status !== 'completed');
        if (notDone.length) throw new Error(`url jobs (${side}): ${notDone.length} of ${JOBS} did not complete`);
        const last = Math.max(...jobs.map((j: { completed_at: string }) => Date.parse(j.completed_at)));
        rates[side].push(JOBS / ((last - started) / 1000));
      } finally {
        await svc.close();
      }
    };
    for (let i = 0; i < ROUNDS; i++) {
      const order: ('ahead' | 'off')[] = i % 2 ? ['ahead', 'off'] : ['off', 'ahead'];
      for (const side of order) await round(side);
    }
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const ahead = median(rates.ahead);
  const off = median(rates.off);
  ctx.log(`url jobs: staging ahead ${rates.ahead.map(perSec).join(', ')}; JOB_STAGE_AHEAD=0 ${rates.off.map(perSec).join(', ')}`);
  return {
    benchmark: `${JOBS} async thumbnail jobs of a ${(bytes.length / 1e6).toFixed(1)} MB URL input served at ${SERVE_BYTES_PER_SEC / 1e6} MB/s, WORKER_CONCURRENCY=${workerConcurrency}`,
    baseline: `${perSec(off)} (the service with JOB_STAGE_AHEAD=0)`,
    service: `${perSec(ahead)} (staging ahead, the default), all completed`,
    figure: ratio(ahead / off),
    target: 'not in the issue: staging ahead must not be slower (>= 1x)',
    met: ahead / off >= 1,
  };
}
