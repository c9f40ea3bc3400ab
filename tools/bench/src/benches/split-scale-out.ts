// The scale-out figure of issue 42: a split job on two Jobs replicas, each pinned to its own core
// (taskset, the replica's whole process tree: its ffmpeg runs inherit it), against bare ffmpeg
// pinned to one core, on the same 2-minute 720p task as split-encode.ts (x264 medium and VP9
// -cpu-used 4, each its own row). Two pinned replicas stand for two one-core machines: the split
// job's parts are work items any replica's free slot takes. The cluster is npm run cluster's
// topology (tools/cluster) with one replica of everything else, unpinned, WORKER_CONCURRENCY=1.
// The job's time is its own created_at to completed_at; its output must match bare ffmpeg's.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Cluster } from '@media/tool-cluster';
import { clusterAccount, cpuSnapshot, cpuSpan, onCluster } from '../lib/cluster.js';
import { checkAgainstBare } from '../lib/output-check.js';
import { pinTree, unpinned } from '../lib/pin.js';
import type { Context, Row } from '../lib/report.js';
import { api, upload } from '../lib/service.js';
import { bareArgs, CODEC_NAMES, EXT, LABEL, longClip, runSplitJob } from '../lib/split-task.js';
import { ratio } from '../lib/stats.js';
import { timeCommand } from '../lib/timing.js';

const TARGET = 1.8;
/** The pinning and log checks run on every CHECK_EVERY-th poll of the job (polled every second). */
const CHECK_EVERY = 5;
/** Each Jobs replica and the core it is pinned to; bare ffmpeg runs on the first one's. */
const PINS = [
  { name: 'jobs-1', cpu: 0 },
  { name: 'jobs-2', cpu: 1 },
] as const;
const BARE_CPU = PINS[0].cpu;
/** The line a replica logs for each part of a split job it ran (services/jobs). */
const PART_LINE = 'ran part ';

export async function splitScaleOut(ctx: Context): Promise<Row[]> {
  const input = await longClip(ctx.workDir);
  const options = {
    replicas: 1,
    replicasOf: { jobs: PINS.length },
    env: { WORKER_CONCURRENCY: '1', PARALLEL_ENCODE: 'auto' },
  };
  return onCluster(ctx, options, async (cluster) => {
    for (const { name, cpu } of PINS) await pinTree(pid(cluster, name), cpu);
    const rows: Row[] = [];
    for (const codec of CODEC_NAMES) {
      // Bare ffmpeg on the same clip, with the cluster up and idle: the same background for both.
      const bareOut = join(ctx.workDir, `bare.${EXT[codec]}`);
      const bareMs = await timeCommand('taskset', ['-c', String(BARE_CPU), 'ffmpeg', ...bareArgs(input, codec, bareOut)], ctx.workDir);
      execFileSync('sync');

      const { authorizations } = await clusterAccount(cluster, 1);
      const call = api(cluster.publicUrl, authorizations[0]!);
      const filePath = await upload(call, input, 'long720.mp4');
      const logs = new LogLines(cluster);
      const escaped: string[] = [];
      const before = await cpuSnapshot(cluster);
      let polls = 0;
      const { job, serviceMs } = await runSplitJob(call, filePath, codec, bareMs, async () => {
        // Every fifth poll: the bench's own reading of /proc and of the logs costs the cores too.
        if (polls++ % CHECK_EVERY) return;
        logs.collect();
        for (const { name, cpu } of PINS) escaped.push(...(await unpinned(pid(cluster, name), cpu)).map((p) => `${name}: ${p}`));
      });
      const cpu = cpuSpan(before, await cpuSnapshot(cluster));
      logs.collect();
      if (escaped.length) throw new Error(`processes of a Jobs replica ran off their core: ${[...new Set(escaped)].join(', ')}`);
      const differs = await checkAgainstBare(job.result[0].download_url, join(ctx.workDir, `split.${EXT[codec]}`), bareOut);

      const parts = job.split_parts ?? 1;
      // A replica logs "ran part" for a part of another replica's job: the parts the job's own
      // replica did not encode itself.
      const elsewhere = PINS.reduce((n, { name }) => n + logs.count(name, job.job_id), 0);
      const perReplica = `, ${elsewhere} of them on the replica that did not take the job`;
      const speedup = bareMs / serviceMs;
      ctx.log(
        `scale-out ${codec}: bare ${(bareMs / 1000).toFixed(1)} s on core ${BARE_CPU}, split job ${(serviceMs / 1000).toFixed(1)} s in ${parts} parts${perReplica}; output ${differs.length ? `differs: ${differs.join('; ')}` : 'as bare'}; CPU ${cpu.text}`,
      );
      rows.push({
        benchmark: `Split encode scale-out, ${LABEL[codec]}, 2 min 720p, 2 Jobs replicas each pinned to its own core (WORKER_CONCURRENCY=1; the other processes unpinned)`,
        baseline: `${(bareMs / 1000).toFixed(1)} s (bare ffmpeg pinned to one core)`,
        service: `${(serviceMs / 1000).toFixed(1)} s (async job, ${parts} parts${perReplica}; Jobs CPU ${PINS.map(({ name }) => `${name} ${cpu.percentOf(name).toFixed(0)}%`).join(', ')})`,
        figure: `${ratio(speedup)} bare's speed${differs.length ? `; output differs from bare's: ${differs.join('; ')}` : ''}`,
        target: `>= ${TARGET}x`,
        met: speedup >= TARGET && differs.length === 0,
      });
    }
    return rows;
  });
}

function pid(cluster: Cluster, name: string): number {
  const p = cluster.get(name).pid;
  if (!p) throw new Error(`${name} is not running`);
  return p;
}

/**
 * The lines each process has logged, gathered from its log tail (the last 20 KB) at every poll, so
 * none is lost to a long job's later lines; lines carry a timestamp, so a repeated one is the same.
 */
class LogLines {
  private readonly seen = new Map<string, Set<string>>();
  constructor(private readonly cluster: Cluster) {}

  collect(): void {
    for (const { name } of PINS) {
      const lines = this.seen.get(name) ?? new Set<string>();
      // The tail's first line may be cut: a part of a line seen whole before.
      for (const line of this.cluster.get(name).log().split('\n').slice(1)) if (line.includes(PART_LINE)) lines.add(line);
      this.seen.set(name, lines);
    }
  }

  /** Parts of `jobId` that replica `name` said it ran. */
  count(name: string, jobId: string): number {
    return [...(this.seen.get(name) ?? [])].filter((line) => line.includes(jobId)).length;
  }
}
