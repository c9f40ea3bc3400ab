// 1,000 tiny async jobs against WORKER_CONCURRENCY x the rate of bare ffmpeg running the same
// tiny task one after another. The jobs are spread over 20 accounts of 50 (the spec's limit of
// jobs at once per account), all submitted up front; the rate is 1,000 over the time from the
// first submission to the last completed_at. None may be lost: each must complete, once, with
// one usage row.
import { copyFile, mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { cpuDelta, cpuTimes, treeCpuTimes, describeThreads, threadTimes, type CpuTimes } from '../lib/proc-cpu.js';
import { median, ms, perSec, ratio } from '../lib/stats.js';
import { api, upload, type Api, type Service } from '../lib/service.js';
import { loopsAtOnce, timeCommand } from '../lib/timing.js';
import type { Context, Row } from '../lib/report.js';

const ACCOUNTS = 20;
const PER_ACCOUNT = 50;
const OPTIONS = ['-frames:v', '1'];
const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

/**
 * Waits until each account (one Api per account) has `perAccount` finished jobs. The rate is
 * taken from the jobs' own completed_at, not from when a poll saw them, so polls only need to
 * find the end; each one costs the service CPU that the jobs share the machine's cores with.
 */
export async function waitForJobs(calls: Api[], perAccount: number, timeoutMs = 600_000, pollMs = 300): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await Promise.all(
    calls.map(async (call) => {
      for (;;) {
        const { pagination } = await call('GET', '/jobs?status=completed,failed,cancelled&limit=1');
        if (pagination.total >= perAccount) return;
        if (Date.now() > deadline) throw new Error(`jobs did not finish: ${pagination.total}/${perAccount}`);
        await sleep(pollMs);
      }
    }),
  );
}

export async function asyncJobs(ctx: Context, svc: Service, tiny: string, workerConcurrency: number): Promise<Row> {
  // A directory of its own with a copy of the input, for each bare ffmpeg loop.
  const inputDir = async (dir: string) => {
    await mkdir(dir, { recursive: true });
    await copyFile(tiny, join(dir, 'tiny.png'));
    return dir;
  };
  const bareDir = await inputDir(join(ctx.workDir, 'bare-tiny'));
  const bareArgs = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-i', 'tiny.png', ...OPTIONS, 'out.jpg'];
  await timeCommand('ffmpeg', bareArgs, bareDir);
  const bareSamples: number[] = [];
  const bareCpuBefore = await cpuTimes();
  for (let i = 0; i < 30; i++) bareSamples.push(await timeCommand('ffmpeg', bareArgs, bareDir));
  const bareCpuAfter = await cpuTimes();
  const bareRate = 1000 / median(bareSamples);
  const expected = workerConcurrency * bareRate;
  // For reference, not the target: WORKER_CONCURRENCY loops of bare ffmpeg at once, which share
  // the cores as the service's workers do. The best any service could reach here, less the
  // bench's own client.
  const loopDirs = await Promise.all(Array.from({ length: workerConcurrency }, (_, i) => inputDir(join(bareDir, `loop-${i}`))));
  const LOOP_RUNS = 50;
  const atOnceRate = (workerConcurrency * LOOP_RUNS * 1000) / (await loopsAtOnce(LOOP_RUNS, 'ffmpeg', bareArgs, loopDirs));

  // Two keys per account: one submits, one polls, so neither nears 300 requests a minute.
  const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, () => svc.account(2)));
  const submitters = accounts.map((a) => api(svc.stack.baseUrl, a.authorizations[0]!));
  const pollers = accounts.map((a) => api(svc.stack.baseUrl, a.authorizations[1]!));
  const inputs = await Promise.all(submitters.map((call) => upload(call, tiny, 'tiny.png')));

  const pid = svc.stack.proc.pid!;
  const serviceCpuBefore = await treeCpuTimes(pid);
  const threadsBefore = await threadTimes(pid);
  const clientCpuBefore = process.cpuUsage();
  const started = Date.now();
  const ids = await Promise.all(
    submitters.map(async (call, a) => {
      const mine: string[] = [];
      const task = { inputs: [{ file_path: inputs[a] }], outputs: [{ file: 'out.jpg', options: OPTIONS }] };
      for (let j = 0; j < PER_ACCOUNT; j++) mine.push((await call('POST', '/ffmpeg/process/async', { task })).job_id);
      return mine;
    }),
  );
  const submittedMs = Date.now() - started;
  await waitForJobs(pollers, PER_ACCOUNT, 600_000, 2000);
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const serviceCpuAfter = await treeCpuTimes(pid);
  const threadsAfter = await threadTimes(pid);

  // Every job completed, exactly the ones submitted, and each charged once.
  let lastCompleted = 0;
  let completed = 0;
  for (let a = 0; a < ACCOUNTS; a++) {
    const { jobs } = await pollers[a]!('GET', '/jobs?limit=100');
    const mine = new Set(ids[a]);
    for (const j of jobs) {
      if (!mine.has(j.id)) throw new Error(`unexpected job ${j.id}`);
      if (j.status !== 'completed') throw new Error(`job ${j.id} ended ${j.status}`);
      completed++;
      lastCompleted = Math.max(lastCompleted, Date.parse(j.completed_at));
    }
    for (let tries = 0; ; tries++) {
      const { rows } = await pollers[a]!('GET', '/account/usage?format=json&limit=10000');
      const charged = rows.filter((r: { request_id: string }) => mine.has(r.request_id));
      if (charged.length === PER_ACCOUNT && new Set(charged.map((r: { request_id: string }) => r.request_id)).size === PER_ACCOUNT) break;
      if (charged.length > PER_ACCOUNT) throw new Error(`account ${a}: ${charged.length} charges for ${PER_ACCOUNT} jobs`);
      if (tries > 100) throw new Error(`account ${a}: ${charged.length} charges for ${PER_ACCOUNT} jobs`);
      await sleep(100);
    }
  }
  const total = ACCOUNTS * PER_ACCOUNT;
  if (completed !== total) throw new Error(`${completed} of ${total} jobs completed`);
  const rate = total / ((lastCompleted - started) / 1000);
  const split = cpuSplit(
    total,
    bareCpuBefore,
    bareCpuAfter,
    bareSamples.length,
    serviceCpuBefore,
    serviceCpuAfter,
    (clientCpu.user + clientCpu.system) / 1000,
  );
  ctx.log(
    `async jobs: bare ffmpeg ${ms(median(bareSamples))} per run (${perSec(bareRate)}); ${workerConcurrency} loops at once ${perSec(atOnceRate)} | ${total} jobs submitted in ${ms(submittedMs)}, all done in ${ms(lastCompleted - started)}`,
  );
  if (split)
    ctx.log(
      `async jobs: ${split.text}; ${split.ceiling(expected)}; the service's threads per job: ${describeThreads(threadsBefore, threadsAfter, total)}`,
    );
  return {
    benchmark: `${total} tiny async jobs (64x64 PNG -> JPEG), WORKER_CONCURRENCY=${workerConcurrency}`,
    baseline: `${perSec(expected)} (${workerConcurrency} x bare ffmpeg ${perSec(bareRate)}); ${workerConcurrency} bare loops at once ${perSec(atOnceRate)} (${ratio(atOnceRate / expected)})`,
    service: `${perSec(rate)}, ${completed}/${total} completed and charged once${split ? `; ${split.text}` : ''}`,
    figure: ratio(rate / expected),
    target: '>= 0.9x jobs/s; none lost',
    met: rate / expected >= 0.9,
  };
}

/**
 * Where the machine's CPU went per job: ffmpeg (the service's children: its ffmpeg fork servers
 * with their runs, or the sandbox's wrappers and ffmpeg when it starts runs directly) against bare ffmpeg's, the service process itself, and the bench's client.
 * On a CPU-bound machine the cores bound the rate: they fit at most cores x 1000 / (CPU per job)
 * jobs a second, so the ceiling with a service that cost nothing is told beside the figure.
 */
function cpuSplit(
  jobs: number,
  bareBefore: CpuTimes | undefined,
  bareAfter: CpuTimes | undefined,
  bareRuns: number,
  svcBefore: CpuTimes | undefined,
  svcAfter: CpuTimes | undefined,
  clientMs: number,
) {
  if (!bareBefore || !bareAfter || !svcBefore || !svcAfter) return undefined; // no /proc
  const bare = cpuDelta(bareBefore, bareAfter).childrenMs / bareRuns;
  const svc = cpuDelta(svcBefore, svcAfter);
  const ffmpeg = svc.childrenMs / jobs;
  const service = svc.selfMs / jobs;
  const client = clientMs / jobs;
  const cores = availableParallelism();
  return {
    text: `CPU per job: ffmpeg ${ms(ffmpeg)} (bare ${ms(bare)}), service ${ms(service)}, bench client ${ms(client)}`,
    ceiling: (expected: number) => {
      const free = (cores * 1000) / (ffmpeg + client);
      return `${cores} cores fit ${perSec((cores * 1000) / (ffmpeg + service + client))} of that; with a service using no CPU, ${perSec(free)} (${ratio(free / expected)})`;
    },
  };
}
