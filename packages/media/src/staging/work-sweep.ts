// Work directories whose run never ended them: their process died (a crash, an OOM kill, a power
// cut) between making one and removing it. On Kubernetes the work volume is an emptyDir that
// outlives a container restart, so a crash loop would fill it. A sweep removes the ones older
// than any run can last. Only names a run makes (`<job id>-<6 characters>`, mkdtemp) are touched,
// so a WORK_DIR pointed at a shared directory loses nothing else; a directory in use by another
// process sharing WORK_DIR is younger than the age limit.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

const WORK_DIR_NAME = /^job_[a-z0-9]+-[A-Za-z0-9]{6}$/;
/** Added to the longest a run can last before its directory counts as left behind. */
export const WORK_SWEEP_MARGIN_MS = 10 * 60_000;
export const WORK_SWEEP_INTERVAL_MS = 10 * 60_000;

/** Removes the work directories under `workRoot` made more than `maxAgeMs` ago; returns their names. */
export async function sweepWorkDirs(workRoot: string, maxAgeMs: number, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  const names = await readdir(workRoot).catch((): string[] => []);
  for (const name of names) {
    if (!WORK_DIR_NAME.test(name)) continue;
    const path = join(workRoot, name);
    // Its mtime is when its run made in/ and out/; anything a run adds beside them only makes it
    // look younger, never older.
    const info = await stat(path).catch(() => null);
    if (!info?.isDirectory() || now - info.mtimeMs < maxAgeMs) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

export interface WorkSweeper {
  stop(): void;
}

/** Sweeps at start and then every `intervalMs`; says in the log what it removed. */
export function startWorkSweeper(
  workRoot: string,
  maxAgeMs: number,
  intervalMs: number,
  logger: { warn: (obj: object, msg: string) => void },
): WorkSweeper {
  const sweep = () =>
    void sweepWorkDirs(workRoot, maxAgeMs).then(
      (removed) =>
        removed.length &&
        logger.warn({ workRoot, removed: removed.length }, 'removed work directories left by a run that never ended (a process died)'),
      (err: Error) => logger.warn({ workRoot, error: err.message }, 'work directory sweep failed'),
    );
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
