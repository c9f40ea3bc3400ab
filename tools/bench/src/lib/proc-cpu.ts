// CPU time of a process and of its reaped children, from /proc/<pid>/stat (Linux). The async-jobs
// benchmark splits the machine's CPU per job between ffmpeg, the service and the bench's client
// with it, so every run shows where the cores went, not only the rate.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { statComm, statFieldsAfterComm } from '@media/testkit';

export interface CpuTimes {
  /** The process's own user + system time, ms. */
  selfMs: number;
  /** User + system time of the children it has waited for (ffmpeg, with its wrappers), ms. */
  childrenMs: number;
}

let ticksPerSec: Promise<number> | undefined;

/** USER_HZ: /proc counts in these (100 on Linux x86_64 and arm64, but ask). */
function clockTicks(): Promise<number> {
  ticksPerSec ??= promisify(execFile)('getconf', ['CLK_TCK']).then(
    ({ stdout }) => Number(stdout.trim()) || 100,
    () => 100,
  );
  return ticksPerSec;
}

/** The CPU fields of a stat line. */
export function parseStat(stat: string, hz: number): CpuTimes {
  // Fields 14-17 of proc(5) (utime stime cutime cstime) are 11-14 after "pid (comm)".
  const [utime, stime, cutime, cstime] = statFieldsAfterComm(stat).slice(11, 15).map(Number);
  if ([utime, stime, cutime, cstime].some((x) => x === undefined || !Number.isFinite(x)))
    throw new Error(`unreadable /proc stat: ${stat.slice(0, 120)}`);
  return { selfMs: ((utime! + stime!) * 1000) / hz, childrenMs: ((cutime! + cstime!) * 1000) / hz };
}

/** The CPU times of `pid` (default: this process); undefined where there is no /proc. */
export async function cpuTimes(pid: number | 'self' = 'self'): Promise<CpuTimes | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat === undefined ? undefined : parseStat(stat, await clockTicks());
}

/**
 * As cpuTimes, with the CPU of the process's live children counted as its children's: the service's
 * ffmpeg fork servers reap their runs themselves, so those runs reach the service's own count only
 * when a server ends.
 */
export async function treeCpuTimes(pid: number): Promise<CpuTimes | undefined> {
  const own = await cpuTimes(pid);
  if (!own) return undefined;
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const children = new Set<string>();
  for (const tid of tids) {
    const list = await readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').catch(() => '');
    for (const child of list.split(' ').filter(Boolean)) children.add(child);
  }
  let childrenMs = own.childrenMs;
  for (const child of children) {
    const times = await cpuTimes(Number(child));
    if (times) childrenMs += times.selfMs + times.childrenMs;
  }
  return { selfMs: own.selfMs, childrenMs };
}

/** b - a, field by field. */
export const cpuDelta = (a: CpuTimes, b: CpuTimes): CpuTimes => ({ selfMs: b.selfMs - a.selfMs, childrenMs: b.childrenMs - a.childrenMs });

/** Own CPU of each thread of `pid`, summed by thread name (node's main thread, libuv's pool, V8's helpers), ms. */
export async function threadTimes(pid: number): Promise<Map<string, number>> {
  const hz = await clockTicks();
  const out = new Map<string, number>();
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const tid of tids) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue; // the thread ended
    // Node 20 names every thread "node"; its main thread is the one whose id is the pid.
    const name = tid === String(pid) ? 'main thread' : `other ${statComm(stat)} threads`;
    out.set(name, (out.get(name) ?? 0) + parseStat(stat, hz).selfMs);
  }
  return out;
}

/** b - a per thread name, largest first, as "name 1.2 ms" over `per`. */
export function describeThreads(a: Map<string, number>, b: Map<string, number>, per: number): string {
  return [...b]
    .map(([name, t]) => [name, (t - (a.get(name) ?? 0)) / per] as const)
    .filter(([, t]) => t > 0)
    .sort((x, y) => y[1] - x[1])
    .map(([name, t]) => `${name} ${t.toFixed(1)} ms`)
    .join(', ');
}
