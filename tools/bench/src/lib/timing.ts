// Timing whole commands and HTTP calls, baseline and service interleaved so that drift in the
// machine's state (page cache, CPU frequency, a neighbour's load) hits both sides alike.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** Runs a command to completion; resolves with its wall time in ms. Non-zero exit rejects. */
export function timeCommand(bin: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(bin, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('error', reject);
    child.on('close', (code) => {
      const elapsed = performance.now() - started;
      if (code === 0) resolve(elapsed);
      else reject(new Error(`${bin} ${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`));
    });
  });
}

/** Times an async step, in ms. */
export async function timed(step: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await step();
  return performance.now() - started;
}

/**
 * One warm-up of each, then `runs` rounds; samples per side. Rounds alternate which side goes
 * first (baseline-service, service-baseline, ...), so that whatever one run leaves behind for the
 * next (dirty pages being written back, a warmer cache) falls on both sides alike.
 */
export async function interleave(
  runs: number,
  baseline: () => Promise<number>,
  service: () => Promise<number>,
): Promise<{ baseline: number[]; service: number[] }> {
  await baseline();
  await service();
  const out = { baseline: [] as number[], service: [] as number[] };
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      out.baseline.push(await baseline());
      out.service.push(await service());
    } else {
      out.service.push(await service());
      out.baseline.push(await baseline());
    }
  }
  return out;
}

/**
 * One loop per directory, all at once, each running the command `runsEach` times in a row in its
 * directory; resolves with the total wall time in ms. What that many workers could do at best on
 * this machine with nothing else running: they share the cores, so it is slower than that many
 * times one loop alone.
 */
export async function loopsAtOnce(runsEach: number, bin: string, args: string[], dirs: string[]): Promise<number> {
  return timed(() =>
    Promise.all(
      dirs.map(async (dir) => {
        for (let i = 0; i < runsEach; i++) await timeCommand(bin, args, dir);
      }),
    ),
  );
}
