// Long encodes split at keyframes (issue 42) against bare ffmpeg on the same 2-minute 720p task,
// x264 medium and VP9 -cpu-used 4, each its own row: (1) one Jobs worker pinned to one core
// (taskset, the whole service's process tree) against bare ffmpeg pinned to the same core: the
// cost of splitting and joining; (2) unpinned, WORKER_CONCURRENCY=2, against bare ffmpeg
// unpinned: what the whole machine gives. The job's time is its own created_at to completed_at.
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context, Row } from '../lib/report.js';
import { api, startService, upload } from '../lib/service.js';
import { ratio } from '../lib/stats.js';
import { timeCommand } from '../lib/timing.js';

const CLIP_SEC = 120;
const CODECS = {
  x264: ['-c:v', 'libx264', '-preset', 'medium', '-crf', '23', '-c:a', 'aac'],
  vp9: ['-c:v', 'libvpx-vp9', '-b:v', '2M', '-deadline', 'good', '-cpu-used', '4', '-c:a', 'libopus'],
} as const;
const EXT = { x264: 'mp4', vp9: 'webm' } as const;

/** 2 minutes of 1280x720 30 fps H.264 (keyframes every 250 frames) with AAC: the split input. */
async function clip(dir: string): Promise<string> {
  const file = join(dir, 'long720.mp4');
  await timeCommand(
    'ffmpeg',
    [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=duration=${CLIP_SEC}:size=1280x720:rate=30`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${CLIP_SEC}`, '-c:v', 'libx264', '-preset', 'veryfast'],
      ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file],
    ],
    dir,
  );
  return file;
}

/** Every process under `root` (itself included), from /proc. */
async function tree(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parents.set(Number(entry), ppid);
  }
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const [pid, ppid] of parents) if (ppid === found[i]) found.push(pid);
  return found;
}

/** Pins every thread of every process of the service to `cpu`; what they start later inherits it. */
async function pin(root: number, cpu: number): Promise<void> {
  for (const pid of await tree(root)) execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

export async function splitEncode(ctx: Context): Promise<Row[]> {
  const input = await clip(ctx.workDir);
  const rows: Row[] = [];
  for (const pinned of [true, false]) {
    for (const codec of ['x264', 'vp9'] as const) {
      const out = `out.${EXT[codec]}`;
      const bareArgs = ['-nostdin', '-loglevel', 'error', '-y', '-i', input, ...CODECS[codec], join(ctx.workDir, out)];
      const bareMs = pinned
        ? await timeCommand('taskset', ['-c', '0', 'ffmpeg', ...bareArgs], ctx.workDir)
        : await timeCommand('ffmpeg', bareArgs, ctx.workDir);
      execFileSync('sync');
      const svc = await startService({ WORKER_CONCURRENCY: pinned ? '1' : '2' });
      try {
        if (pinned) await pin(svc.stack.proc.pid!, 0);
        const { authorizations } = await svc.account();
        const call = api(svc.stack.baseUrl, authorizations[0]!);
        const filePath = await upload(call, input, 'long720.mp4');
        const { job_id } = await call('POST', '/ffmpeg/process/async', {
          task: { inputs: [{ file_path: filePath }], outputs: [{ file: out, options: [...CODECS[codec]] }] },
        });
        let job: Record<string, any>;
        for (;;) {
          job = await call('GET', `/job/${job_id}`);
          if (job.status === 'completed' || job.status === 'failed') break;
          await new Promise((r) => setTimeout(r, 500));
        }
        if (job.status !== 'completed') throw new Error(`split job ${job_id} ${job.status}: ${job.error}`);
        const { jobs } = await call('GET', '/jobs?limit=1');
        const serviceMs = Date.parse(jobs[0].completed_at) - Date.parse(jobs[0].created_at);
        const speedup = bareMs / serviceMs;
        const where = pinned ? 'one core (taskset), one worker' : 'whole machine, WORKER_CONCURRENCY=2';
        ctx.log(
          `${codec} ${where}: bare ${(bareMs / 1000).toFixed(1)} s, split job ${(serviceMs / 1000).toFixed(1)} s in ${job.split_parts ?? 1} parts`,
        );
        rows.push({
          benchmark: `Split encode, ${codec === 'x264' ? 'x264 medium' : 'VP9 -cpu-used 4'}, 2 min 720p, ${where}`,
          baseline: `${(bareMs / 1000).toFixed(1)} s (bare ffmpeg${pinned ? ', same core' : ''})`,
          service: `${(serviceMs / 1000).toFixed(1)} s (async job, ${job.split_parts ?? 1} parts)`,
          figure: `${ratio(speedup)} bare's speed`,
          target: pinned ? '>= 0.95x' : '>= 1.0x',
          met: speedup >= (pinned ? 0.95 : 1.0),
        });
      } finally {
        await svc.close();
      }
    }
  }
  return rows;
}
