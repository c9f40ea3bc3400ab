// Runs ffmpeg or ffprobe the one safe way: no shell, a fixed argv, the job's work directory as cwd,
// a minimal environment, stdin closed, its own session/process group (so a kill reaches everything
// it started), kernel resource limits, a hard SIGKILL at the time limit, and death with its parent.
import { performance } from 'node:perf_hooks';
import { type ForkServer, type ForkServerHooks, ForkServerPool, ForkServerUnavailable } from '@media/fork-server';
import { env, Errors } from '@media/platform';
import { findOnPath, type WarnLogger } from './binaries.js';
import { abortReason } from './errors.js';
import { prlimitArgs, rlimitValues, type SandboxLimits } from './limits.js';
import { StderrTail, type StderrLineFilter } from './stderr-tail.js';

export interface SandboxSpec {
  /** Absolute path of ffmpeg or ffprobe. */
  bin: string;
  args: string[];
  /** The job's work directory: every relative path in `args` resolves inside it. */
  cwd: string;
  timeoutMs: number;
  limits: SandboxLimits;
  signal?: AbortSignal;
  onStdout?: (chunk: Buffer) => void;
  onSpawn?: (pid: number) => void;
  logger?: WarnLogger;
  /** Sees each stderr line before the error tail keeps it (report runs take their filters' lines). */
  stderrFilter?: StderrLineFilter;
  /** More environment for the run (FONTCONFIG_FILE), on top of sandboxEnv. */
  env?: Readonly<Record<string, string>>;
  /** The owner's fork servers (createForkServers); without them the run starts directly. */
  forkServers?: ForkServerPool;
}

export interface SandboxExit {
  exitCode: number | undefined;
  /** Set when the process died of a signal (ours or the kernel's: SIGXFSZ, SIGXCPU...). */
  signal: string | undefined;
  /** Wall time from spawn to exit. */
  durationMs: number;
  /** The error passed to `kill()` (timeout, abort, a limit), when we ended the process. */
  killReason: unknown;
  stderr: string[];
}

export interface SandboxProcess {
  pid: number | undefined;
  /** SIGKILL the whole process group; the first reason given is the one reported. */
  kill(reason: unknown): void;
  done: Promise<SandboxExit>;
}

/** What each sandboxed run (ffmpeg's, ffprobe's) is given, besides its own options. */
export interface SandboxRunOptions {
  /** Hard wall-clock limit; the process group is SIGKILLed when it passes. */
  timeoutMs: number;
  /** Aborting kills the process group; the run then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with the tool's pid (also its process group id) once it runs. */
  onSpawn?: (pid: number) => void;
  /** Resource limit overrides (see `limitsFor`). */
  limits?: Partial<SandboxLimits>;
  logger?: WarnLogger;
  /** The owner's fork servers (createForkServers); without them each run starts directly. */
  forkServers?: ForkServerPool;
}

/** The setting Jobs and Probe read, each for its own pool of fork servers. */
export const forkServerConfig = {
  /** Start ffmpeg/ffprobe runs from a fork server (much less CPU per run); off: exec each run. */
  FFMPEG_FORK_SERVER: env.bool(true),
};

/** How a service that runs ffmpeg or ffprobe (Jobs, Probe) may be given its fork servers. */
export interface ForkServersOption {
  /** Fork servers the caller owns and closes (test stacks share one); default: the service's own. */
  forkServers?: ForkServerPool;
}

/**
 * A service's fork servers: the caller's, else its own from its FFMPEG_FORK_SERVER, and how to
 * let go of them when it stops (its own are closed; the caller's stay the caller's).
 */
export function serviceForkServers(
  option: ForkServersOption,
  opts: { enabled: boolean; logger?: WarnLogger },
): { forkServers: ForkServerPool; release(): Promise<void> } {
  if (option.forkServers) return { forkServers: option.forkServers, release: async () => {} };
  const own = createForkServers(opts);
  return { forkServers: own, release: () => own.close() };
}

/** A pool of fork servers (@media/fork-server) whose runs get this sandbox's bookkeeping. */
export function createForkServers(opts: { enabled: boolean; logger?: WarnLogger; runsPerServer?: number }): ForkServerPool {
  return new ForkServerPool({ ...opts, hooks: forkServerHooks });
}

/**
 * Starts the tool in the sandbox: forked from its fork server when the spec has a pool with one
 * (@media/fork-server), else directly. Rejects only if it cannot be started at all.
 */
export async function startSandboxed(spec: SandboxSpec): Promise<SandboxProcess> {
  if (spec.signal?.aborted) throw abortReason(spec.signal);
  // A server that could not take the run (gone, or full) is replaced once; then the run starts directly.
  for (let attempt = 0; spec.forkServers && attempt < 2; attempt++) {
    const server = await spec.forkServers.serverFor(spec.bin);
    if (!server) break;
    try {
      return await startForked(server, spec);
    } catch (err) {
      // A run killed (time limit, abort) before its pid came back is not started again.
      if (!(err instanceof ForkServerUnavailable)) throw err;
      spec.logger?.warn({ bin: spec.bin, err: String(err) }, 'ffmpeg fork server failed to start a run');
    }
  }
  return startDirect(spec);
}

const forkServerHooks: ForkServerHooks = {
  track(pid) {
    running.add(pid);
    installExitHook();
  },
  untrack: (pid) => running.delete(pid),
  // A run's pid is its session's until it calls setsid(): the group, and the pid itself.
  kill(pid) {
    killGroup(pid);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: already gone.
    }
  },
  sandboxEnv,
  setpriv: () => findWrappers().then((w) => w.setpriv),
};

/** Kills the run at its time limit or when its caller aborts; returns what stops watching. */
function watchLimits(spec: Pick<SandboxSpec, 'timeoutMs' | 'signal'>, kill: (reason: unknown) => void): () => void {
  const timer = setTimeout(() => kill(Errors.timedOut()), spec.timeoutMs);
  const onAbort = () => kill(abortReason(spec.signal!));
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  return () => {
    clearTimeout(timer);
    spec.signal?.removeEventListener('abort', onAbort);
  };
}

/** One run on a fork server, with the time limit, the abort and the error tail a direct run has. */
async function startForked(server: ForkServer, spec: SandboxSpec): Promise<SandboxProcess> {
  const rlimits = await rlimitValues(spec.limits);
  if (spec.signal?.aborted) throw abortReason(spec.signal); // aborted while the request was made
  const tail = new StderrTail(spec.stderrFilter);
  const stop = new AbortController();
  let killReason: unknown;
  // The first reason given is the one reported; the server ignores a stop after the run's exit.
  const kill = (reason: unknown) => {
    if (killReason !== undefined) return;
    killReason = reason;
    stop.abort(reason);
  };
  const settle = watchLimits(spec, kill);
  try {
    const run = await server.run(
      {
        bin: spec.bin,
        args: spec.args,
        cwd: spec.cwd,
        env: { ...sandboxEnv(spec.cwd), ...spec.env },
        rlimits,
        ...(spec.onSpawn ? { onSpawn: spec.onSpawn } : {}),
        ...(spec.onStdout ? { onStdout: spec.onStdout } : {}),
        onStderr: (chunk) => tail.push(chunk),
      },
      stop.signal,
    );
    const done = run.done.then((exit): SandboxExit => {
      settle();
      // A run that died with its server (no exit reported) failed through no fault of the task.
      const reason = exit.stopped ? killReason : exit.lost ? Errors.internal() : undefined;
      return { exitCode: exit.exitCode, signal: exit.signal, durationMs: exit.durationMs, killReason: reason, stderr: tail.get() };
    });
    return { pid: run.pid, kill, done };
  } catch (err) {
    settle();
    throw err;
  }
}

async function startDirect(spec: SandboxSpec): Promise<SandboxProcess> {
  const argv = await wrapperArgv(spec);
  if (spec.signal?.aborted) throw abortReason(spec.signal); // aborted while the argv was made
  // execa (about 150 modules) loads with the first direct run: services that never run ffmpeg skip it.
  const { execa } = await import('execa');
  const started = performance.now();
  const child = execa(argv[0]!, argv.slice(1), {
    cwd: spec.cwd,
    env: { ...sandboxEnv(spec.cwd), ...spec.env },
    extendEnv: false,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false, // we consume the streams; execa's maxBuffer would otherwise kill long runs
    reject: false,
    detached: true, // setsid(): own session and process group
    cleanup: false, // execa ignores it for detached children; our own exit hook covers them
    forceKillAfterDelay: false,
    windowsHide: true,
  });
  const pid = child.pid;

  const tail = new StderrTail(spec.stderrFilter);
  child.stderr?.on('data', (chunk: Buffer | string) => tail.push(chunk));
  child.stdout?.on('data', (chunk: Buffer | string) => spec.onStdout?.(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)));

  let killReason: unknown;
  let exitedAt: number | undefined;
  const kill = (reason: unknown) => {
    if (exitedAt !== undefined || killReason !== undefined) return;
    killReason = reason;
    killGroup(pid);
  };
  child.once('exit', () => (exitedAt = performance.now()));

  if (pid !== undefined) {
    running.add(pid);
    installExitHook();
  }
  const settle = watchLimits(spec, kill);
  if (pid !== undefined) {
    try {
      spec.onSpawn?.(pid);
    } catch {
      // A failing listener must not leave an unwatched process behind.
    }
  }

  const done = (async (): Promise<SandboxExit> => {
    try {
      const result = await child;
      if (result.exitCode === undefined && result.signal === undefined) {
        throw new Error(`could not start ${spec.bin}: ${result.shortMessage ?? 'unknown error'}`);
      }
      return {
        exitCode: result.exitCode,
        signal: result.signal,
        durationMs: Math.round((exitedAt ?? performance.now()) - started),
        killReason,
        stderr: tail.get(),
      };
    } finally {
      settle();
      if (pid !== undefined) running.delete(pid);
    }
  })();
  return { pid, kill, done };
}

/** The environment ffmpeg sees: nothing of ours (no secrets, no FFREPORT, no proxies). */
export function sandboxEnv(workDir: string): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    LC_ALL: 'C',
    AV_LOG_FORCE_NOCOLOR: '1',
    // glibc reserves 64 MB of address space per malloc arena (up to 8 per core); cap the arenas so
    // the RLIMIT_AS budget goes to frames, not to reservations.
    MALLOC_ARENA_MAX: '2',
    // Libraries that want a cache (fontconfig for drawtext) use the work directory, not a home.
    XDG_CACHE_HOME: `${workDir}/.cache`,
  };
}

// --- wrappers: setpriv (die with the parent) and prlimit (resource limits) -----------------------

interface Wrappers {
  prlimit?: string;
  setpriv?: string;
}
let wrappers: Promise<Wrappers> | undefined;
let warnedNoPrlimit = false;

function findWrappers(): Promise<Wrappers> {
  const pathVar = [process.env.PATH ?? '', '/usr/bin', '/bin', '/usr/sbin', '/sbin'].join(':');
  wrappers ??= Promise.all([findOnPath('prlimit', pathVar), findOnPath('setpriv', pathVar)]).then(([prlimit, setpriv]) => ({
    prlimit,
    setpriv,
  }));
  return wrappers;
}

/** The full argv: `[setpriv --pdeathsig KILL --] [prlimit <limits> --] <tool> <args>`. */
export async function wrapperArgv(spec: Pick<SandboxSpec, 'bin' | 'args' | 'limits' | 'logger'>): Promise<string[]> {
  const { prlimit, setpriv } = await findWrappers();
  const argv: string[] = [];
  // If the service dies (even by SIGKILL), the kernel kills ffmpeg too: a detached child would
  // otherwise outlive it. setpriv and prlimit both exec, so the attribute reaches ffmpeg itself.
  if (setpriv) argv.push(setpriv, '--pdeathsig', 'KILL', '--');
  if (prlimit) {
    argv.push(prlimit, ...(await prlimitArgs(spec.limits)), '--');
  } else if (!warnedNoPrlimit) {
    warnedNoPrlimit = true;
    spec.logger?.warn({}, 'prlimit (util-linux) not found: ffmpeg runs without memory, file size and CPU limits');
  }
  argv.push(spec.bin, ...spec.args);
  return argv;
}

// --- process groups ------------------------------------------------------------------------------

const running = new Set<number>();
let exitHookInstalled = false;

/** SIGKILL the process group led by `pid` (detached children lead their own group). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: already gone.
  }
}

// Detached children are not killed with us by default: do it on any orderly exit. (A SIGKILLed
// service is covered by the pdeathsig above.)
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of running) killGroup(pid);
  });
}
