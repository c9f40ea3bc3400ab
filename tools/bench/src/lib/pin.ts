// Pinning a process tree to one core (taskset), so one core stands for one machine: what the
// split-encode benchmarks compare against bare ffmpeg pinned the same way. Linux only (/proc).
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

/** Every process under `root` (itself included), from /proc. */
export async function processTree(root: number): Promise<number[]> {
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

/** Pins every thread of every process under `root` to `cpu`; what they start later inherits it. */
export async function pinTree(root: number, cpu: number): Promise<void> {
  for (const pid of await processTree(root)) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
    } catch (err) {
      // A process that ended since the walk needs no pinning; one still there does.
      if ((await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null)) !== null) throw err;
    }
  }
}

/**
 * The processes under `root` allowed on any core but `cpu` (pid and their list): empty while the
 * pinning holds. A process started with its own affinity would escape it and skew the figure.
 */
export async function unpinned(root: number, cpu: number): Promise<string[]> {
  const out: string[] = [];
  for (const pid of await processTree(root)) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const allowed = /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1];
    if (allowed !== undefined && allowed !== String(cpu)) out.push(`${pid} on ${allowed}`);
  }
  return out;
}
