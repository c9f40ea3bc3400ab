// One fork server: a copy of ffmpeg or ffprobe started with the library preloaded, which loads and
// binds its shared libraries once and forks a fresh pre-main() copy for each run it is asked for.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ResultPromise } from 'execa';
import { decodeStatus, encodeRequest, FrameReader } from './protocol.js';

const READY_TIMEOUT_MS = 10_000;
const STDERR_TAIL_BYTES = 4096;

/** What the owner's sandbox does for the server and its runs. */
export interface ForkServerHooks {
  /** Process bookkeeping: runs are killed with the service like direct ones. */
  track(pid: number): void;
  untrack(pid: number): void;
  /** Kills a run (its process group) or a server. */
  kill(pid: number): void;
  /** The environment of a process started in `cwd` (the server's own, and each run's base). */
  sandboxEnv(cwd: string): Record<string, string>;
  /** The setpriv binary, when there is one: the server dies with the service. */
  setpriv(): Promise<string | undefined>;
}

/** One run, as the server is asked for it. */
export interface ForkRunRequest {
  bin: string;
  args: readonly string[];
  cwd: string;
  /** The run's whole environment. */
  env: Record<string, string>;
  /** The five rlimits the library requires (as, fsize, nofile, cpu, core). */
  rlimits: Record<string, number>;
  onSpawn?: (pid: number) => void;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
}

export interface ForkRunExit {
  exitCode: number | undefined;
  signal: string | undefined;
  durationMs: number;
  /** The server died before reporting the exit: the run died with it (its parent-death signal). */
  lost: boolean;
  /** The run was told to stop (its signal aborted) before it exited. */
  stopped: boolean;
}

export interface ForkRun {
  pid: number;
  done: Promise<ForkRunExit>;
}

/** The server could not start a run (gone, or full): the run may be started directly instead. */
export class ForkServerUnavailable extends Error {}

export class ForkServer {
  private runs = 0;
  private active = 0;
  private retired = false;
  private exited = false;
  /** It failed to start a run (gone, or full): the next run gets a new server. */
  private broken = false;

  private constructor(
    private readonly child: ResultPromise,
    private readonly socketPath: string,
    dir: string,
    private readonly hooks: ForkServerHooks,
    private readonly runsPerServer: number,
  ) {
    void child.then(() => {
      this.exited = true;
      void rm(dir, { recursive: true, force: true });
    });
  }

  static async start(bin: string, lib: string, hooks: ForkServerHooks, runsPerServer: number): Promise<ForkServer> {
    // A 0700 directory of our own holds the socket: only this user can ask for runs.
    const dir = await mkdtemp(join(tmpdir(), 'media-fork-'));
    const socketPath = join(dir, 's');
    const setpriv = await hooks.setpriv();
    const argv = setpriv ? [setpriv, '--pdeathsig', 'KILL', '--', bin] : [bin];
    // Loaded with the first server, not at import: processes that never run ffmpeg skip execa.
    const { execa } = await import('execa');
    const child = execa(argv[0]!, argv.slice(1), {
      cwd: dir,
      env: { ...hooks.sandboxEnv(dir), LD_PRELOAD: lib, LD_BIND_NOW: '1', FORKSERVER_SOCKET: socketPath, FORKSERVER_TOOL: bin },
      extendEnv: false,
      stdin: 'pipe', // its end is the server's end
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      detached: true, // a terminal's Ctrl-C reaches the service, which then ends the runs in order
      cleanup: false,
      forceKillAfterDelay: false,
    });
    child.stdin?.on('error', () => {});
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL_BYTES);
    });
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
      let seen = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('ready\n')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      void child.then(() => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!ready) {
      if (child.pid !== undefined) hooks.kill(child.pid);
      await rm(dir, { recursive: true, force: true });
      throw new Error(`${bin} with the fork server library did not start: ${stderr.trim().replace(/\s+/g, ' ') || 'no message'}`);
    }
    if (child.pid !== undefined) hooks.track(child.pid);
    void child.then(() => child.pid !== undefined && hooks.untrack(child.pid));
    // An idle server does not keep the service's process alive; its runs' connections do.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
    return new ForkServer(child, socketPath, dir, hooks, runsPerServer);
  }

  get socket(): string {
    return this.socketPath;
  }

  usable(): boolean {
    return !this.exited && !this.broken && !this.retired && this.runs < this.runsPerServer;
  }

  /** No new runs; ends once its runs have (at once with `now`, killing them). */
  retire(now = false): void {
    this.retired = true;
    if (now || this.active === 0) this.child.stdin?.end();
  }

  /**
   * Starts one run: resolves once it has a pid. `stop` ends it: before the pid, the request is
   * dropped and this rejects with the stop's reason; after it, the run is killed. Rejects with
   * ForkServerUnavailable when the server could not start the run (the caller may start it directly).
   */
  run(req: ForkRunRequest, stop?: AbortSignal): Promise<ForkRun> {
    const request = encodeRequest(req.cwd, req.env, req.rlimits, [req.bin, ...req.args]);
    if (stop?.aborted) return Promise.reject(stop.reason);
    this.runs++;
    this.active++;
    const started = performance.now();
    const sock = connect(this.socketPath);
    sock.write(request);
    let pid: number | undefined;
    let status: { exitCode: number | undefined; signal: string | undefined } | undefined;
    let stopped = false;
    let finished = false;
    let resolveDone!: (exit: ForkRunExit) => void;
    const done = new Promise<ForkRunExit>((resolve) => (resolveDone = resolve));

    const onStop = () => {
      // Once the exit is in, the server has reaped the run: its pid may be someone else's.
      if (finished || status !== undefined) return;
      stopped = true;
      if (pid !== undefined) this.hooks.kill(pid);
      else sock.destroy(); // not forked yet, or just: the server kills a run whose caller hung up
    };
    stop?.addEventListener('abort', onStop, { once: true });

    return new Promise<ForkRun>((resolveStart, rejectStart) => {
      const finish = (exit: Omit<ForkRunExit, 'durationMs' | 'stopped'>) => {
        if (finished) return;
        finished = true;
        stop?.removeEventListener('abort', onStop);
        if (pid !== undefined) this.hooks.untrack(pid);
        this.active--;
        if (this.retired && this.active === 0) this.child.stdin?.end();
        resolveDone({ ...exit, durationMs: Math.round(performance.now() - started), stopped });
      };
      const refused = (why: string) => {
        finish({ exitCode: undefined, signal: undefined, lost: false });
        rejectStart(stopped ? stop!.reason : new ForkServerUnavailable(`could not start ${req.bin}: ${why}`));
      };
      const frames = new FrameReader((type, payload) => {
        if (type === 0x70 /* p */) {
          pid = Number(payload.toString());
          this.hooks.track(pid);
          if (stopped) this.hooks.kill(pid);
          try {
            req.onSpawn?.(pid);
          } catch {
            // A failing listener must not leave an unwatched process behind.
          }
          resolveStart({ pid, done });
        } else if (type === 0x6f /* o */) {
          req.onStdout?.(payload);
        } else if (type === 0x65 /* e */) {
          req.onStderr?.(payload);
        } else if (type === 0x78 /* x */) {
          status = decodeStatus(Number(payload.toString().split(' ')[0]));
        } else if (type === 0x66 /* f */) {
          sock.destroy();
          this.broken = true;
          refused(payload.toString());
        }
      });
      sock.on('data', (chunk: Buffer) => frames.push(chunk));
      sock.on('error', () => {});
      sock.on('close', () => {
        if (pid === undefined) {
          if (!stopped) this.broken = true; // refused: the server is gone
          refused('the fork server closed the connection');
          return;
        }
        // No exit frame: the server itself died, and its runs with it (their parent-death signal).
        finish(status ? { ...status, lost: false } : { exitCode: undefined, signal: 'SIGKILL', lost: true });
      });
    });
  }
}
