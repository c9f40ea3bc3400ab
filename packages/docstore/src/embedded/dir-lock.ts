// One process per embedded database directory: two would each hold the state in memory and
// append to the same journal, and diverge. A LOCK file names its owner: its pid, and on Linux its
// kernel boot, start time and pid namespace.
// - An owner in this pid namespace is judged by its pid (as PostgreSQL's postmaster.pid is): a
//   lock whose process is gone (a crash, a kill -9) is taken over at once; the start time keeps a
//   pid reused since from passing for it.
// - An owner in another pid namespace (another container on the same volume) cannot be seen, so
//   it proves it is alive by touching the file every few seconds: a lock left untouched for
//   FOREIGN_STALE_MS is taken over, a fresh one is waited for that long, then refused.
// - An owner on another host (a folder shared over the network) is judged by its heartbeat too,
//   which needs clocks that agree. A lock of this host from an earlier boot is stale.
import { readFileSync, readlinkSync } from 'node:fs';
import { link, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { setTimeout as pause } from 'node:timers/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

interface Owner {
  pid: number;
  host?: string;
  boot?: string;
  start?: string;
  pidns?: string;
}

export const LOCK_FILE = 'LOCK';

export interface LockTimings {
  /** How often the owner touches LOCK (ms). */
  heartbeatMs: number;
  /** A lock of another pid namespace untouched this long is stale (ms). */
  foreignStaleMs: number;
  /** An unreadable LOCK younger than this is still being written by a starting process (ms). */
  writingGraceMs: number;
}

const DEFAULT_TIMINGS: LockTimings = { heartbeatMs: 5_000, foreignStaleMs: 20_000, writingGraceMs: 2_000 };

/** The directory is held by another live process (or already open in this one). */
export class DirectoryInUseError extends Error {
  // Reported like a system refusal (a port in use): one line for the operator, no stack.
  readonly code = 'EBUSY';
  readonly syscall = 'lock';
}

/** Directories this process holds: a second open here is refused too. */
const held = new Set<string>();

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** State (field 3) and start time (field 22, clock ticks since boot) of /proc/<pid>/stat. */
function procStat(pid: number): { state?: string; start?: string } {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return {};
  // The command name (field 2) is in parentheses and may hold spaces: count after its last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0], start: rest[19] };
}

function myIdentity(): Owner {
  let pidns: string | undefined;
  try {
    pidns = readlinkSync('/proc/self/ns/pid');
  } catch {
    pidns = undefined; // not Linux: judged by pid alone
  }
  return { pid: process.pid, host: hostname(), boot: read('/proc/sys/kernel/random/boot_id'), start: procStat(process.pid).start, pidns };
}

/** Whether a process of this pid namespace is the owner, alive. */
function aliveHere(owner: Owner): boolean {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0 || owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; // ESRCH: no such process
  }
  const now = procStat(owner.pid);
  if (now.state === 'Z') return false; // exited, not yet reaped
  if (owner.start === undefined || now.start === undefined) return true; // cannot tell: assume it is
  return now.start === owner.start;
}

type Verdict = 'alive' | 'stale' | 'wait';
interface Judged {
  verdict: Verdict | 'gone';
  pid?: number;
}

/** What to make of the lock at `path` (LOCK, or a copy moved aside). */
async function judge(path: string, me: Owner, t: LockTimings): Promise<Judged> {
  let text: string;
  let age: number;
  try {
    [text, age] = await Promise.all([readFile(path, 'utf8'), stat(path).then((s) => Date.now() - s.mtimeMs)]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { verdict: 'gone' };
    throw err;
  }
  let owner: Owner;
  try {
    owner = JSON.parse(text) as Owner;
  } catch {
    // Empty or cut short: a start writing it now (where hard links are missing), or a crash mid-write.
    return { verdict: age < t.writingGraceMs ? 'wait' : 'stale' };
  }
  // Another host or pid namespace: its pid and boot say nothing here (every host's first pid
  // namespace has the same id), only its heartbeat does.
  const differs = (a?: string, b?: string) => a !== undefined && b !== undefined && a !== b;
  if (differs(owner.host, me.host) || differs(owner.pidns, me.pidns)) {
    return { verdict: age > t.foreignStaleMs ? 'stale' : 'wait', pid: owner.pid };
  }
  if (differs(owner.boot, me.boot)) return { verdict: 'stale' }; // this host rebooted since
  return { verdict: aliveHere(owner) ? 'alive' : 'stale', pid: owner.pid };
}

/** Filesystems without hard links (some FUSE, SMB and VM shared folders) refuse link() so. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Creates LOCK with `content` unless it exists. A whole file written under a private name and
 * linked into place: a reader never sees it half-written, and of two racing starts one wins.
 * Without hard links, an exclusive create, then the write (judge() gives that a moment).
 */
async function createLock(path: string, temp: string, content: string, linkFile: typeof link): Promise<boolean> {
  try {
    await linkFile(temp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(code)) throw err;
  }
  try {
    await writeFile(path, content, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Returns a live lock moved aside to its name, unless a third start has taken the name since (rare). */
async function putBack(aside: string, path: string, linkFile: typeof link): Promise<void> {
  try {
    await linkFile(aside, path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (NO_HARD_LINKS.has(code)) await rename(aside, path).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

const inUse = (dir: string, { verdict, pid }: Judged) =>
  new DirectoryInUseError(
    verdict === 'alive'
      ? `${dir} is in use by another process (pid ${pid}): stop it first, or give this one another DATA_DIR. One process per data directory.`
      : `${dir} is in use by a process in another container or PID namespace (pid ${pid ?? '?'} there; its lock is kept fresh): stop it first, or give this one another DATA_DIR. One process per data directory.`,
  );

/** Takes the directory's lock; resolves to its release. Throws DirectoryInUseError when held. */
export async function lockDirectory(
  dir: string,
  options: {
    timings?: Partial<LockTimings>;
    link?: typeof link;
    /** Called before each pause on a lock that may yet go stale (tests count the waits). */
    onWait?: () => void;
  } = {},
): Promise<() => Promise<void>> {
  const t = { ...DEFAULT_TIMINGS, ...options.timings };
  const path = join(dir, LOCK_FILE);
  if (held.has(path)) throw new DirectoryInUseError(`${dir} is already open in this process.`);
  const me = myIdentity();
  const mine = JSON.stringify(me);
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(temp, mine);
  // Waiting is for a lock of another namespace going stale, or one being written: at most this long.
  const giveUpAt = Date.now() + t.foreignStaleMs + t.heartbeatMs;
  try {
    for (;;) {
      if (await createLock(path, temp, mine, options.link ?? link)) break;
      const judged = await judge(path, me, t);
      if (judged.verdict === 'gone') continue;
      if (judged.verdict === 'stale') {
        // Moved aside before it is judged again: another start may have taken it over since it
        // was read, and a live lock must not be deleted.
        const aside = `${temp}.stale`;
        try {
          await rename(path, aside);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
          throw err;
        }
        const again = await judge(aside, me, t);
        if (again.verdict === 'stale' || again.verdict === 'gone') {
          await unlink(aside).catch(() => undefined);
          continue;
        }
        await putBack(aside, path, options.link ?? link);
        if (again.verdict === 'alive') throw inUse(dir, again);
        if (Date.now() >= giveUpAt) throw inUse(dir, again);
      } else if (judged.verdict === 'alive') {
        throw inUse(dir, judged);
      } else if (Date.now() >= giveUpAt) {
        throw inUse(dir, judged);
      }
      options.onWait?.();
      await pause(Math.min(500, t.heartbeatMs));
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  held.add(path);
  // Proof of life for a start in another pid namespace, which cannot see this pid.
  const beat = setInterval(() => {
    const now = new Date();
    void utimes(path, now, now).catch(() => undefined);
  }, t.heartbeatMs);
  beat.unref();
  return async () => {
    clearInterval(beat);
    held.delete(path);
    if ((await readFile(path, 'utf8').catch(() => '')) === mine) await unlink(path).catch(() => undefined);
  };
}
