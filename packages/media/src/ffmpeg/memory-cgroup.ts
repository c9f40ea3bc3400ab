// The memory cap as the kernel enforces it: a cgroup v2 child per run with memory.max, where this
// process has a delegated cgroup v2 of its own with the memory controller (a systemd unit with
// Delegate=yes, a container whose runtime delegates its cgroup). Elsewhere (cgroup v1, hybrid
// hosts whose v2 tree has no controllers, no write access) the poll of memory-watch.ts is used.
//
// cgroup v2 lets no cgroup with children's controllers enabled hold processes itself, so the
// first use moves this cgroup's processes (the service, its fork servers) into a leaf `service`
// and enables memory for the children; each run then gets `run-<pid>` beside it. A run is moved
// in once its pid is known: what it allocated before (a few ms of startup) stays outside its cap.
import { appendFile, mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where cgroup v2 may be mounted: alone, or as the `unified` part of a hybrid host. */
const V2_MOUNTS = ['/sys/fs/cgroup', '/sys/fs/cgroup/unified'];

/** This process's cgroup v2 directory with the memory controller available to it, or undefined. */
export async function ownMemoryCgroup(procSelfCgroup: string, mounts: readonly string[] = V2_MOUNTS): Promise<string | undefined> {
  const path = /^0::(\/.*)$/m.exec(procSelfCgroup)?.[1];
  if (path === undefined) return undefined;
  for (const mount of mounts) {
    const dir = join(mount, path);
    const controllers = await readFile(join(dir, 'cgroup.controllers'), 'utf8').catch(() => undefined);
    if (controllers === undefined) continue;
    return controllers.split(/\s+/).includes('memory') ? dir : undefined;
  }
  return undefined;
}

/**
 * Makes `own` a parent of run cgroups: its processes moved to `own/service`, memory enabled for
 * its children. Throws when this process may not (no delegation): the caller falls back.
 */
export async function delegate(own: string): Promise<void> {
  const enabled = await readFile(join(own, 'cgroup.subtree_control'), 'utf8');
  if (enabled.split(/\s+/).includes('memory')) return;
  const leaf = join(own, 'service');
  await mkdir(leaf, { recursive: true });
  // One pid per write: the kernel moves one process (with its threads) per write(2).
  const pids = (await readFile(join(own, 'cgroup.procs'), 'utf8')).split('\n').filter((p) => /^\d+$/.test(p));
  for (const pid of pids) await writeFile(join(leaf, 'cgroup.procs'), pid).catch(() => undefined); // exited meanwhile
  await writeFile(join(own, 'cgroup.subtree_control'), '+memory');
}

let parent: Promise<string | undefined> | undefined;

/** The delegated cgroup runs are made in, found and set up once; undefined: use the poll. */
export function runCgroupParent(): Promise<string | undefined> {
  parent ??= (async () => {
    const own = await ownMemoryCgroup(await readFile('/proc/self/cgroup', 'utf8'));
    if (own === undefined) return undefined;
    await delegate(own);
    return own;
  })().catch(() => undefined);
  return parent;
}

export interface RunCgroup {
  /** True when the kernel killed the run for passing memory.max. */
  oomKilled(): Promise<boolean>;
  /** Removes the cgroup (once the run has exited). */
  remove(): Promise<void>;
}

/** A cgroup for the run `pid` under `parentDir` with memory.max = `limitBytes`, the run moved into it. */
export async function joinRunCgroup(parentDir: string, pid: number, limitBytes: number): Promise<RunCgroup> {
  const dir = join(parentDir, `run-${pid}`);
  await mkdir(dir);
  try {
    await writeFile(join(dir, 'memory.max'), String(limitBytes));
    // No swapping past the cap, and the whole run killed together; optional where unsupported.
    await writeFile(join(dir, 'memory.swap.max'), '0').catch(() => undefined);
    await writeFile(join(dir, 'memory.oom.group'), '1').catch(() => undefined);
    await appendFile(join(dir, 'cgroup.procs'), String(pid));
  } catch (err) {
    await rmdir(dir).catch(() => undefined);
    throw err;
  }
  return {
    oomKilled: async () => {
      const events = await readFile(join(dir, 'memory.events'), 'utf8').catch(() => '');
      return Number(/^oom_kill (\d+)$/m.exec(events)?.[1] ?? 0) > 0;
    },
    remove: () => rmdir(dir).catch(() => undefined),
  };
}
