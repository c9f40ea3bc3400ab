// One account's backlog against another account's next job: account A queues 40 slow async jobs
// (3 s each, -re: real time, little CPU), then account B sends one tiny job at a time. B's
// latency (created_at to completed_at, the service's own clock) is compared with B's latency on
// an idle service. With fair claiming B's job waits at most for one of A's jobs to end (one A
// job's latency on the idle service, measured too), not for A's backlog (40 x 3 s /
// WORKER_CONCURRENCY).
import { median, ms } from '../lib/stats.js';
import type { Api, Service } from '../lib/service.js';
import { finished, sleep, twoAccounts } from '../lib/two-accounts.js';
import type { Context, Row } from '../lib/report.js';

const A_JOBS = 40;
const A_JOB_SEC = 3;
const ROUNDS = 5;

export async function fairShare(ctx: Context, svc: Service, clip: string, tiny: string, workerConcurrency: number): Promise<Row> {
  const { submitA, pollA, callB, pollB, clipPath, tinyPath } = await twoAccounts(svc, clip, tiny);
  /** Runs one job of the account to its end: its latency by the service's own timestamps. */
  const latency = async (submit: Api, polls: Api[], task: unknown): Promise<number> => {
    const { job_id } = await submit('POST', '/ffmpeg/process/async', task);
    await finished(polls, job_id, 100);
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
