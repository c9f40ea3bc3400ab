// Long encodes split at keyframes (issue 42) against bare ffmpeg on the same 2-minute 720p task,
// x264 medium and VP9 -cpu-used 4, each its own row: (1) one Jobs worker pinned to one core
// (taskset, the whole service's process tree) against bare ffmpeg pinned to the same core: the
// cost of splitting and joining; (2) unpinned, WORKER_CONCURRENCY=2, against bare ffmpeg
// unpinned: what the whole machine gives. The job's time is its own created_at to completed_at;
// its output must match bare ffmpeg's (output-check.ts) for the row to count.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { checkAgainstBare } from '../lib/output-check.js';
import { pinTree } from '../lib/pin.js';
import type { Context, Row } from '../lib/report.js';
import { api, startService, upload } from '../lib/service.js';
import { bareArgs, CODEC_NAMES, EXT, LABEL, longClip, runSplitJob } from '../lib/split-task.js';
import { ratio } from '../lib/stats.js';
import { timeCommand } from '../lib/timing.js';

export async function splitEncode(ctx: Context): Promise<Row[]> {
  const input = await longClip(ctx.workDir);
  const rows: Row[] = [];
  for (const pinned of [true, false]) {
    for (const codec of CODEC_NAMES) {
      const bareOut = join(ctx.workDir, `bare.${EXT[codec]}`);
      const args = bareArgs(input, codec, bareOut);
      const bareMs = pinned
        ? await timeCommand('taskset', ['-c', '0', 'ffmpeg', ...args], ctx.workDir)
        : await timeCommand('ffmpeg', args, ctx.workDir);
      execFileSync('sync');
      const svc = await startService({ WORKER_CONCURRENCY: pinned ? '1' : '2' });
      try {
        if (pinned) await pinTree(svc.stack.proc.pid!, 0);
        const { authorizations } = await svc.account();
        const call = api(svc.stack.baseUrl, authorizations[0]!);
        const filePath = await upload(call, input, 'long720.mp4');
        const { job, serviceMs } = await runSplitJob(call, filePath, codec, bareMs);
        const differs = await checkAgainstBare(job.result[0].download_url, join(ctx.workDir, `split.${EXT[codec]}`), bareOut);
        const speedup = bareMs / serviceMs;
        const where = pinned ? 'one core (taskset), one worker' : 'whole machine, WORKER_CONCURRENCY=2';
        ctx.log(
          `${codec} ${where}: bare ${(bareMs / 1000).toFixed(1)} s, split job ${(serviceMs / 1000).toFixed(1)} s in ${job.split_parts ?? 1} parts; output ${differs.length ? `differs: ${differs.join('; ')}` : 'as bare'}`,
        );
        const target = pinned ? 0.95 : 1.0;
        rows.push({
          benchmark: `Split encode, ${LABEL[codec]}, 2 min 720p, ${where}`,
          baseline: `${(bareMs / 1000).toFixed(1)} s (bare ffmpeg${pinned ? ', same core' : ''})`,
          service: `${(serviceMs / 1000).toFixed(1)} s (async job, ${job.split_parts ?? 1} parts)`,
          figure: `${ratio(speedup)} bare's speed${differs.length ? `; output differs from bare's: ${differs.join('; ')}` : ''}`,
          target: pinned ? '>= 0.95x' : '>= 1.0x',
          met: speedup >= target && differs.length === 0,
        });
      } finally {
        await svc.close();
      }
    }
  }
  return rows;
}
