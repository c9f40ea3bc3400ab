// Async jobs/s with 2 Jobs replicas against 1, the rest of the cluster the same: the baseline is
// the same cluster with jobs-2 stopped (SIGTERM, as a scale-down), then started again. Each job
// reads a short clip with -re (in real time, on little CPU) into `-f null`, so it holds a slot for
// the clip's length and the rate is bound by the slots (replicas x WORKER_CONCURRENCY, the chart's
// value), not by this 2-core machine's CPU. One account submits every job at once (under its 50 at
// once; one account, so no run is stopped for another's, slots.ts rule 2). The steady rate is taken
// from the jobs' own completed_at, between the end of the first wave and the start of the last.
import type { Cluster } from '@media/tool-cluster';
import { alternatingSides, clusterAccount, cpuSnapshot, cpuSpan, putBack, takeOut } from '../lib/cluster.js';
import { api, upload } from '../lib/service.js';
import { median, ratio, steadyRate } from '../lib/stats.js';
import { sleep } from '../lib/two-accounts.js';
import type { Context, Row } from '../lib/report.js';

export const PACED_SEC = 3;
const JOBS = 40;
const ROUNDS = 3;
const TARGET = 1.8;
const EXTRA = 'jobs-2';

const rate = (x: number) => `${x.toFixed(2)} jobs/s`;

interface Side {
  replicas: number;
  slots: number;
  rate: number;
  /** Jobs seen processing, sampled every second while some were still pending. */
  busy: number[];
  cpu: string;
}

export async function jobsReplicas(ctx: Context, cluster: Cluster, clip: string): Promise<Row> {
  const concurrency = Number(cluster.get('jobs-1').spec.env.WORKER_CONCURRENCY);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('jobs-1 has no WORKER_CONCURRENCY in its environment');

  const side = async (replicas: 1 | 2): Promise<Side> => {
    if (replicas === 1) await takeOut(cluster, EXTRA);
    else await putBack(cluster, EXTRA);
    // A fresh account each time: its counts start at zero. One key submits, two poll.
    const { authorizations } = await clusterAccount(cluster, 3);
    const [submit, ...polls] = authorizations.map((a) => api(cluster.publicUrl, a));
    const filePath = await upload(submit!, clip, 'paced.mp4');
    const task = {
      task: { inputs: [{ file_path: filePath, options: ['-re'] }], outputs: [{ file: 'out.null', options: ['-f', 'null'] }] },
    };
    const before = await cpuSnapshot(cluster);
    const started = Date.now();
    const ids = new Set<string>();
    for (let i = 0; i < JOBS; i++) ids.add((await submit!('POST', '/ffmpeg/process/async', task)).job_id);
    const busy: number[] = [];
    let refused = 0;
    const deadline = started + ((JOBS * PACED_SEC) / replicas) * 1000 * 3 + 60_000;
    for (let i = 0; ; i++) {
      if (Date.now() > deadline) throw new Error(`${replicas} Jobs replica(s): the jobs did not finish in time`);
      const poll = polls[i % polls.length]!;
      const counts = await Promise.all(
        ['completed,failed,cancelled', 'processing', 'pending'].map(
          async (status) => (await poll('GET', `/jobs?status=${status}&limit=1`)).pagination.total as number,
        ),
      ).catch((err: Error) => {
        // A poll the balancer refused (no gateway UP) only delays finding the end; counted, told.
        if (!/-> 503 /.test(err.message)) throw err;
        refused++;
        return undefined;
      });
      if (counts) {
        const [finished, processing, pending] = counts as [number, number, number];
        if (finished >= JOBS) break;
        if (pending > 0) busy.push(processing);
      }
      await sleep(1000);
    }
    const after = await cpuSnapshot(cluster);
    const { jobs } = await submit!('GET', '/jobs?limit=100');
    const ends: number[] = [];
    for (const j of jobs) {
      if (!ids.has(j.id)) throw new Error(`unexpected job ${j.id}`);
      if (j.status !== 'completed') throw new Error(`job ${j.id} ended ${j.status}: ${j.error}`);
      ends.push(Date.parse(j.completed_at));
    }
    if (ends.length !== JOBS) throw new Error(`${ends.length} of ${JOBS} jobs listed`);
    const slots = replicas * concurrency;
    const steady = steadyRate(ends, slots);
    const result = { replicas, slots, rate: steady, busy, cpu: cpuSpan(before, after).text };
    ctx.log(
      `jobs replicas: ${replicas} replica(s), ${slots} slots: ${rate(steady)} steady, all ${JOBS} done in ${((Math.max(...ends) - started) / 1000).toFixed(1)} s; processing while some pending ${busy.join(',')}${refused ? `; ${refused} polls answered 503` : ''}; CPU ${result.cpu}`,
    );
    return result;
  };

  const { ones, twos } = await alternatingSides(ROUNDS, side);
  await putBack(cluster, EXTRA);
  const ratios = ones.map((one, i) => twos[i]!.rate / one.rate);
  const figure = median(ratios);
  const busyTwo = median(twos.flatMap((s) => s.busy));
  ctx.log(`jobs replicas: ratios ${ratios.map((x) => x.toFixed(3)).join(', ')}`);
  return {
    benchmark: `async jobs/s, 2 Jobs replicas against 1 (WORKER_CONCURRENCY=${concurrency} each), ${JOBS} jobs of a ${PACED_SEC} s clip read with -re`,
    baseline: `${rate(median(ones.map((s) => s.rate)))} (1 replica, ${concurrency} slots)`,
    service: `${rate(median(twos.map((s) => s.rate)))} (2 replicas, ${2 * concurrency} slots; median ${busyTwo} running while jobs waited)`,
    figure: `${ratio(figure)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`,
    target: `>= ${TARGET}x`,
    met: figure >= TARGET,
  };
}
