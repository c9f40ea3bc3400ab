// No account captures the slots (issue 39): account A runs two long paced async jobs (the clip
// looped to 60 s, read with -re: real time, little CPU), which with WORKER_CONCURRENCY=2 hold
// every slot; account B sends one tiny async job at a time. B's latency (created_at to
// completed_at, the service's own clock) is compared with B's latency on an idle service. B's
// job takes the slot of A's youngest run (stopped and requeued: docs/api/processing.md), so it
// should wait for no A job at all; before, it waited for one to end (up to the time limit).
import { median, ms } from '../lib/stats.js';
import type { Service } from '../lib/service.js';
import { finished, sleep, twoAccounts } from '../lib/two-accounts.js';
import type { Context, Row } from '../lib/report.js';

const A_LOOPS = 5; // the 10 s clip six times: 60 s a run
const TARGET = 1.2;

export async function capacityShare(ctx: Context, svc: Service, clip: string, tiny: string, workerConcurrency: number): Promise<Row> {
  const { submitA, pollA, callB, pollB, clipPath, tinyPath } = await twoAccounts(svc, clip, tiny);
  const bTask = { task: { inputs: [{ file_path: tinyPath }], outputs: [{ file: 'out.jpg', options: ['-frames:v', '1'] }] } };
  const bJob = async (): Promise<number> => {
    const { job_id } = await callB('POST', '/ffmpeg/process/async', bTask);
    await finished(pollB, job_id, 50);
    const { jobs } = await callB('GET', '/jobs?limit=100');
    const job = jobs.find((j: { id: string }) => j.id === job_id);
    return Date.parse(job.completed_at) - Date.parse(job.created_at);
  };
  /** Waits until A's runs hold every slot again (its stopped run is claimed again once B's ends). */
  const aHoldsAll = async () => {
    for (let i = 0; i < 200; i++) {
      const { pagination } = await pollA('GET', '/jobs?status=processing&limit=1');
      if (pagination.total >= workerConcurrency) return;
      await sleep(50);
    }
    throw new Error("A's jobs did not take every slot");
  };

  await bJob(); // warm-up
  const alone: number[] = [];
  for (let i = 0; i < ctx.runs; i++) alone.push(await bJob());

  const aTask = {
    task: {
      inputs: [{ file_path: clipPath, options: ['-stream_loop', String(A_LOOPS), '-re'] }],
      outputs: [{ file: 'long.mkv', options: ['-c', 'copy'] }],
    },
  };
  const aIds: string[] = [];
  for (let i = 0; i < workerConcurrency; i++) aIds.push((await submitA('POST', '/ffmpeg/process/async', aTask)).job_id);
  const busy: number[] = [];
  let syncBusy = 0;
  for (let i = 0; i < ctx.runs; i++) {
    await aHoldsAll();
    busy.push(await bJob());
    await aHoldsAll();
    // And a sync request of B: answered, not 503 "Too busy".
    const sync = await callB('POST', '/ffmpeg/process', bTask).catch((err: Error) => ({ ok: false, error: err.message }));
    if (sync.ok === false) syncBusy++;
  }
  const { pagination } = await pollA('GET', '/jobs?status=completed&limit=1');
  if (pagination.total > 0) throw new Error("one of A's long jobs ended before B's last: the figure would not be under load");
  for (const id of aIds) await submitA('DELETE', `/job/${id}`).catch(() => undefined); // pending again, if stopped last

  const base = median(alone);
  const load = median(busy);
  ctx.log(
    `capacity share: B alone ${alone.map((x) => Math.round(x))} ms | B while A's ${workerConcurrency} long runs hold every slot ${busy.map((x) => Math.round(x))} ms; B's sync requests refused: ${syncBusy} of ${ctx.runs}`,
  );
  return {
    benchmark: `account B's tiny async job while account A runs ${workerConcurrency} long paced jobs (60 s, -re), WORKER_CONCURRENCY=${workerConcurrency}`,
    baseline: `${ms(base)} (B alone)`,
    service: ms(load),
    figure: `${(load / base).toFixed(2)}x (+${ms(load - base)}); B's sync refused ${syncBusy}/${ctx.runs}`,
    target: `<= ${TARGET}x, no sync refused`,
    met: load <= TARGET * base && syncBusy === 0,
  };
}
