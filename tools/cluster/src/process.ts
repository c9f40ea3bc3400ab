// One process of the cluster, by name: started from a fixed command line, environment and ports
// (so a restart comes back where it was), with what a fault injector needs: kill with any
// signal, pause (SIGSTOP) and resume, restart, stop as an orchestrator does.
import { spawn, type ChildProcess } from 'node:child_process';
import { stopProcess } from '@media/testkit';

export interface ProcessSpec {
  /** Unique in the cluster: `nats-1`, `mongo`, `gateway-2`... */
  name: string;
  /** What it is: `nats`, `mongo`, `s3`, `haproxy`, or a chart component (`gateway`, `jobs`...). */
  kind: string;
  argv: string[];
  /** Its whole environment (nothing is inherited). */
  env: Record<string, string>;
  cwd?: string;
  /** Where it listens, by role (`main`, `metrics`, `admin`...). */
  ports: Record<string, number>;
  /** Resolves once it serves; `exited` is aborted if the process ends meanwhile. */
  ready(exited: AbortSignal): Promise<void>;
  /** SIGTERM's grace before SIGKILL (the chart's terminationGracePeriodSeconds). */
  stopGraceMs: number;
}

export interface ProcessInfo {
  name: string;
  kind: string;
  pid: number | undefined;
  running: boolean;
  paused: boolean;
  ports: Record<string, number>;
}

const LOG_TAIL = 20_000;

// If this process dies without stopping the cluster, leave nothing behind (one listener for all).
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export class ClusterProcess {
  private child: ChildProcess | undefined;
  private tail = '';
  private isPaused = false;
  /** Set while it is being stopped or killed on purpose: its exit is then no crash. */
  private stopping = false;
  /** Called when it exits without being asked to (a crash), with the exit code or signal. */
  onUnexpectedExit?: (proc: ClusterProcess, how: string) => void;

  constructor(readonly spec: ProcessSpec) {}

  get name(): string {
    return this.spec.name;
  }
  get kind(): string {
    return this.spec.kind;
  }
  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }
  get paused(): boolean {
    return this.isPaused;
  }

  info(): ProcessInfo {
    return { name: this.name, kind: this.kind, pid: this.pid, running: this.running, paused: this.paused, ports: { ...this.spec.ports } };
  }

  /** The last 20 KB of its stdout and stderr, across restarts. */
  log(): string {
    return this.tail;
  }

  /** Spawns it and waits until it serves; on failure it is stopped and the error carries its log. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running (pid ${this.child!.pid})`);
    const [cmd, ...args] = this.spec.argv;
    // A process group of its own: a terminal's Ctrl-C reaches only `npm run cluster`, which stops
    // everything in order (applications before what they call).
    const child = spawn(cmd!, args, { env: this.spec.env, cwd: this.spec.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.child = child;
    this.isPaused = false;
    const keep = (d: Buffer) => (this.tail = (this.tail + d.toString()).slice(-LOG_TAIL));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    live.add(child);
    const exited = new AbortController();
    child.once('error', (err) => exited.abort(err));
    child.once('exit', (code, signal) => {
      live.delete(child);
      exited.abort(new Error(`${this.name} exited (${signal ?? `code ${code}`})`));
      // Before it is ready, start() itself reports the exit.
      if (this.child === child && !this.stopping && up) this.onUnexpectedExit?.(this, signal ?? `code ${code}`);
    });
    let up = false;
    try {
      await this.spec.ready(exited.signal);
      up = true;
    } catch (err) {
      await this.stop();
      throw new Error(
        `${this.name} (${this.spec.argv.join(' ')}) did not start: ${(err as Error).message}\n${this.tail.split('\n').slice(-20).join('\n')}`,
      );
    }
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    this.stopping = true;
    try {
      if (this.isPaused) this.signal('SIGCONT'); // a stopped process does not act on SIGTERM
      await stopProcess(child, { graceMs: this.spec.stopGraceMs });
    } finally {
      this.stopping = false;
      this.isPaused = false;
    }
  }

  /** Sends `signal` (default SIGKILL) and, unless it is SIGSTOP/SIGCONT, waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) throw new Error(`${this.name} is not running`);
    if (signal === 'SIGSTOP' || signal === 'SIGCONT') return signal === 'SIGSTOP' ? this.pause() : this.resume();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.stopping = true;
    this.signal(signal);
    if (this.isPaused && signal !== 'SIGKILL') this.signal('SIGCONT');
    await exited;
    this.stopping = false;
    this.isPaused = false;
  }

  pause(): void {
    this.signal('SIGSTOP');
    this.isPaused = true;
  }

  resume(): void {
    this.signal('SIGCONT');
    this.isPaused = false;
  }

  /** Stops it if running (SIGTERM), then starts it again on the same ports and data. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  private signal(signal: NodeJS.Signals): void {
    if (!this.running) throw new Error(`${this.name} is not running`);
    this.child!.kill(signal);
  }
}
