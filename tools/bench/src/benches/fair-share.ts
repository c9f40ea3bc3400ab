// One account's backlog against another account's next job: account A queues 40 slow async jobs
// (3 s each, -re: real time, little CPU), then account B sends one tiny job at a time. B's
// latency (created_at to completed_at, the service's own clock) is compared with B's latency on
// an idle service. With fair claiming B's job waits at most for one of A's jobs to end (one A
// job's latency on the idle service, measured too), not for A's backlog (40 x 3 s /
// WORKER_CONCURRENCY).
import { median, ms } from '../lib/stats.js';
import { api, upload, type Api, type Service } from '../lib/service.js';
import type { Context, Row } from '../lib/report.js';

const A_JOBS = 40;
const A_JOB_SEC = 3;
const ROUNDS = 5;
const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

/** Polls (through several keys: each may send 300 requests a minute) until the job ends. */
async function finished(calls: Api[], jobId: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const job = await calls[i % calls.length]!('GET', `/job/${jobId}`);
    if (job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled') {
      if (job.status !== 'completed') throw new Error(`job ${jobId} ended ${job.status}: ${job.error}`);
      return;
    }
    await sleep(100); // the latency is the service's own timestamps': polling only finds the end
  }
  throw new Error(`job ${jobId} did not finish`);
}

export async function fairShare(ctx: Context, svc: Service, clip: string, tiny: string, workerConcurrency: number): Promise<Row> {
  const a = await svc.account(2);
  const b = await svc.account(4);
  const submitA = api(svc.stack.baseUrl, a.authorizations[0]!);
  const pollA = api(svc.stack.baseUrl, a.authorizations[1]!);
  const [callB, ...pollB] = b.authorizations.map((auth) => api(svc.stack.baseUrl, auth)) as [Api, ...Api[]];
  const clipPath = await upload(submitA, clip, 'clip.mp4');
  const tinyPath = await upload(callB, tiny, 'tiny.png');
  /** Runs one job of the account to its end: its latency by the service's own timestamps. */
  const latency = async (submit: Api, polls: Api[], task: unknown): Promise<number> => {
    const { job_id } = await submit('POST', '/ffmpeg/process/async', task);
    await finished(polls, job_id);
    // The job list carries the service's timestamps (GET /job has none).
    const { jobs } = await submit('GET', '/jobs?limit=100');
    const job = jobs.find((j: { id: string }) => j.id === job_id);
    return Date.parse(job.completed_at) - Date.parse(job.created_at);
  };
  const bJob = () =>
    latency(callB, pollB, { task: { inputs: [{ file_path: tinyPath }], outputs: [{ file: 'out.jpg', options: ['-frames:v', '1'] }] } });
  const aTask = {
    task: {
      inputs: [{ file_path: clipPath, options: ['-re', '-t', String(A_JOB_SEC)] }],
      outputs: [{ file: 'out.mkv', options: ['-c', 'copy'] }],
    },
  };
  await bJob(); // warm-up
  const alone: number[] = [];
  for (let i = 0; i < ROUNDS; i++) alone.push(await bJob());
  // One of A's jobs on the idle service: how long B may have to wait for a slot.
  const aRun = await latency(submitA, [pollA], aTask);

  const aIds: string[] = [];
  for (let i = 0; i < A_JOBS; i++) aIds.push((await submitA('POST', '/ffmpeg/process/async', aTask)).job_id);
  // Every slot busy with A's jobs before B sends anything.
  for (let i = 0; i < 200; i++) {
    const { pagination } = await pollA('GET', '/jobs?status=processing&limit=1');
    if (pagination.total >= workerConcurrency) break;
    await sleep(50);
  }
  const flooded: number[] = [];
  for (let i = 0; i < ROUNDS; i++) flooded.push(await bJob());
  const { pagination } = await pollA('GET', '/jobs?status=pending&limit=1');
  if (pagination.total === 0) throw new Error("A's backlog ran out before B's last job: the figure would not be under load");
  for (const id of aIds) await submitA('DELETE', `/job/${id}`).catch(() => undefined); // the rest of the backlog

  const base = median(alone);
  const load = median(flooded);
  ctx.log(
    `fair share: B alone ${alone.map((x) => Math.round(x))} ms, one A job alone ${Math.round(aRun)} ms | B behind A's ${A_JOBS} jobs ${flooded.map((x) => Math.round(x))} ms (A still had ${pagination.total} pending)`,
  );
  const bound = base + aRun;
  return {
    benchmark: `account B's tiny async job while account A has ${A_JOBS} jobs of ${A_JOB_SEC} s queued, WORKER_CONCURRENCY=${workerConcurrency}`,
    baseline: `${ms(base)} (B alone)`,
    service: ms(load),
    figure: `${(load / base).toFixed(1)}x (+${ms(load - base)})`,
    target: `<= B alone + one A job alone (${ms(bound)})`,
    met: load <= bound,
  };
}
