// Runs ffmpeg/ffprobe through a fork server (packages/media/native/forkserver.c): one copy of the
// tool per binary is started with the server library preloaded, loads and binds its ~200 shared
// libraries once, and forks a fresh pre-main() copy for each run. A tiny run then costs ~10 ms of
// CPU instead of ~68 ms. Each run gets the same sandbox as a direct start (sandbox.ts): its own
// session, death with its parent, stdin closed, the run's cwd, environment and rlimits.
//
// Used when the library was built (`npm run build` compiles it when a C compiler is present) and
// FFMPEG_FORK_SERVER is on; anything else (no library, a server that will not start) falls back to
// starting the tool directly, with one warning.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { env, Errors } from '@media/platform';
import type { WarnLogger } from './binaries.js';
import { abortReason } from './errors.js';
import { rlimitValues } from './limits.js';
import type { SandboxExit, SandboxProcess, SandboxSpec } from './sandbox.js';
import { StderrTail } from './stderr-tail.js';

/**
 * A server is replaced after this many runs, so runs do not share one memory layout for long
 * (every child of a server has its parent's; a fresh server gets a fresh one).
 */
const RUNS_PER_SERVER = 1000;
let runsPerServer = RUNS_PER_SERVER;
const READY_TIMEOUT_MS = 10_000;

export interface ForkServerHooks {
  /** The sandbox's process bookkeeping: runs are killed with the service like direct ones. */
  track(pid: number): void;
  untrack(pid: number): void;
  kill(pid: number): void;
  sandboxEnv(cwd: string): Record<string, string>;
  setpriv(): Promise<string | undefined>;
}

/** The setting Jobs and Probe read (one process-wide switch: the embedded stack runs both in one). */
export const forkServerConfig = {
  /** Start ffmpeg/ffprobe runs from a fork server (much less CPU per run); off: exec each run. */
  FFMPEG_FORK_SERVER: env.bool(true),
};

let enabled = true;
let library: string | undefined | null = null; // null: not looked up yet
const servers = new Map<string, Promise<ForkServer | undefined>>();
let warned = false;

/** FFMPEG_FORK_SERVER: off starts every run directly (exec, fresh memory layout each time). */
export function configureForkServer(on: boolean, opts: { runsPerServer?: number } = {}): void {
  enabled = on;
  runsPerServer = opts.runsPerServer ?? RUNS_PER_SERVER;
  if (!on) void closeForkServers();
}

/** The built library, if any: dist/native next to the compiled code, or the package's dist from src. */
export function forkServerLibrary(): string | undefined {
  if (library === null) {
    const candidates = ['../native/forkserver.so', '../../dist/native/forkserver.so'].map((rel) =>
      fileURLToPath(new URL(rel, import.meta.url)),
    );
    library = candidates.find((file) => existsSync(file));
  }
  return library;
}

/** The fork server for `bin`, started on first use; undefined: start runs directly. */
export async function forkServerFor(bin: string, hooks: ForkServerHooks, logger?: WarnLogger): Promise<ForkServer | undefined> {
  if (!enabled || process.platform !== 'linux') return undefined;
  const lib = forkServerLibrary();
  if (!lib) return undefined;
  let server = servers.get(bin);
  const current = await server;
  if (servers.get(bin) !== server) return forkServerFor(bin, hooks, logger); // replaced meanwhile
  if (current?.usable()) return current;
  if (server && !current) return undefined; // it would not start: direct runs from then on
  if (current) current.retire();
  server = ForkServer.start(bin, lib, hooks).catch((err: unknown) => {
    if (!warned) {
      warned = true;
      logger?.warn({ bin, err: String(err) }, 'ffmpeg fork server unavailable: starting every run directly (about 60 ms more CPU per run)');
    }
    return undefined;
  });
  servers.set(bin, server);
  return server;
}

/** The sockets of the running servers (tests: what another process could try to connect to). */
export async function forkServerSockets(): Promise<string[]> {
  return (await Promise.all(servers.values())).flatMap((server) => (server ? [server.socket] : []));
}

/** Stops every server (their runs are killed): tests, and turning the feature off. */
export async function closeForkServers(): Promise<void> {
  const all = [...servers.values()];
  servers.clear();
  for (const server of await Promise.all(all)) server?.retire(true);
}

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
  ) {
    void child.then(() => {
      this.exited = true;
      void rm(dir, { recursive: true, force: true });
    });
  }

  static async start(bin: string, lib: string, hooks: ForkServerHooks): Promise<ForkServer> {
    // A 0700 directory of our own holds the socket: only this user can ask for runs.
    const dir = await mkdtemp(join(tmpdir(), 'media-fork-'));
    const socketPath = join(dir, 's');
    const setpriv = await hooks.setpriv();
    const argv = setpriv ? [setpriv, '--pdeathsig', 'KILL', '--', bin] : [bin];
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
    const stderr = new StderrTail();
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
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
      throw new Error(`${bin} with the fork server library did not start: ${stderr.get().join(' ') || 'no message'}`);
    }
    if (child.pid !== undefined) hooks.track(child.pid);
    void child.then(() => child.pid !== undefined && hooks.untrack(child.pid));
    // An idle server does not keep the service's process alive; its runs' connections do.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
    return new ForkServer(child, socketPath, dir, hooks);
  }

  get socket(): string {
    return this.socketPath;
  }

  usable(): boolean {
    return !this.exited && !this.broken && !this.retired && this.runs < runsPerServer;
  }

  /** No new runs; ends once its runs have (at once with `now`, killing them). */
  retire(now = false): void {
    this.retired = true;
    if (now || this.active === 0) this.child.stdin?.end();
  }

  /**
   * Starts one run: resolves once it has a pid. Rejects with ForkServerUnavailable when the server
   * could not start it (the caller tries a new server, then a direct start), or with the run's kill reason.
   */
  async run(spec: SandboxSpec): Promise<SandboxProcess> {
    const request = encodeRequest(spec.cwd, { ...this.hooks.sandboxEnv(spec.cwd), ...spec.env }, await rlimitValues(spec.limits), [
      spec.bin,
      ...spec.args,
    ]);
    if (spec.signal?.aborted) throw abortReason(spec.signal); // aborted while the request was made
    this.runs++;
    this.active++;
    return this.connectRun(spec, request);
  }

  private connectRun(spec: SandboxSpec, request: Buffer): Promise<SandboxProcess> {
    const started = performance.now();
    const sock = connect(this.socketPath);
    sock.write(request);
    const tail = new StderrTail(spec.stderrFilter);
    let pid: number | undefined;
    let killReason: unknown;
    let exit: SandboxExit | undefined;
    let finished = false;
    let resolveDone!: (exit: SandboxExit) => void;
    const done = new Promise<SandboxExit>((resolve) => (resolveDone = resolve));

    const kill = (reason: unknown) => {
      // Once the exit is in, the server has reaped the run: its pid may be someone else's.
      if (finished || exit !== undefined || killReason !== undefined) return;
      killReason = reason;
      if (pid !== undefined) this.hooks.kill(pid);
      else sock.destroy(); // not forked yet, or just: the server kills a run whose caller hung up
    };
    const timer = setTimeout(() => kill(Errors.timedOut()), spec.timeoutMs);
    const onAbort = () => kill(abortReason(spec.signal!));
    spec.signal?.addEventListener('abort', onAbort, { once: true });

    return new Promise<SandboxProcess>((resolveStart, rejectStart) => {
      const finish = (result: SandboxExit) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        spec.signal?.removeEventListener('abort', onAbort);
        if (pid !== undefined) this.hooks.untrack(pid);
        this.active--;
        if (this.retired && this.active === 0) this.child.stdin?.end();
        resolveDone(result);
      };
      const frames = new FrameReader((type, payload) => {
        if (type === 0x70 /* p */) {
          pid = Number(payload.toString());
          this.hooks.track(pid);
          if (killReason !== undefined) this.hooks.kill(pid);
          try {
            spec.onSpawn?.(pid);
          } catch {
            // A failing listener must not leave an unwatched process behind.
          }
          resolveStart({ pid, kill, done });
        } else if (type === 0x6f /* o */) {
          spec.onStdout?.(payload);
        } else if (type === 0x65 /* e */) {
          tail.push(payload);
        } else if (type === 0x78 /* x */) {
          exit = {
            ...decodeStatus(Number(payload.toString().split(' ')[0])),
            durationMs: Math.round(performance.now() - started),
            killReason,
            stderr: tail.get(),
          };
        } else if (type === 0x66 /* f */) {
          sock.destroy();
          this.broken = true;
          finish({ exitCode: undefined, signal: undefined, durationMs: 0, killReason, stderr: [] });
          rejectStart(killReason ?? new ForkServerUnavailable(`could not start ${spec.bin}: ${payload.toString()}`));
        }
      });
      sock.on('data', (chunk: Buffer) => frames.push(chunk));
      sock.on('error', () => {});
      sock.on('close', () => {
        if (pid === undefined) {
          if (killReason === undefined) this.broken = true; // refused: the server is gone
          finish({ exitCode: undefined, signal: undefined, durationMs: 0, killReason, stderr: [] });
          rejectStart(killReason ?? new ForkServerUnavailable(`could not start ${spec.bin}: the fork server closed the connection`));
          return;
        }
        // No exit frame: the server itself died, and its runs with it (their parent-death signal).
        finish(
          exit ?? {
            exitCode: undefined,
            signal: 'SIGKILL',
            durationMs: Math.round(performance.now() - started),
            killReason: killReason ?? Errors.internal(),
            stderr: tail.get(),
          },
        );
      });
    });
  }
}

/** The server could not start a run (gone, or full): the run may be started directly instead. */
export class ForkServerUnavailable extends Error {}

/** The request the library reads: NUL-terminated strings, each list preceded by its length. */
export function encodeRequest(cwd: string, env: Record<string, string>, limits: Record<string, number>, argv: string[]): Buffer {
  const parts = ['FS1', cwd];
  const envItems = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  parts.push(String(envItems.length), ...envItems);
  const limitItems = Object.entries(limits).map(([k, v]) => `${k}=${v}`);
  parts.push(String(limitItems.length), ...limitItems);
  parts.push(String(argv.length), ...argv);
  for (const part of parts) if (part.includes('\0')) throw new Error('an argument contains a NUL byte');
  return Buffer.from(parts.map((p) => `${p}\0`).join(''));
}

/** A wait(2) status as a direct run reports it: an exit code, or the name of the killing signal. */
export function decodeStatus(status: number): Pick<SandboxExit, 'exitCode' | 'signal'> {
  const signo = status & 0x7f;
  if (signo === 0) return { exitCode: (status >> 8) & 0xff, signal: undefined };
  const name = Object.entries(constants.signals).find(([, n]) => n === signo)?.[0];
  return { exitCode: undefined, signal: name ?? `SIG${signo}` };
}

/** Splits the byte stream into frames: type (1 byte), length (4 bytes, big-endian), payload. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  constructor(private readonly onFrame: (type: number, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 5) {
      const length = this.pending.readUInt32BE(1);
      if (this.pending.length < 5 + length) break;
      const type = this.pending[0]!;
      const payload = this.pending.subarray(5, 5 + length);
      this.pending = this.pending.subarray(5 + length);
      this.onFrame(type, payload);
    }
  }
}
