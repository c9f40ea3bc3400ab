// The fork servers of one owner (the Jobs or the Probe service): one per binary, started on first
// use, replaced after their share of runs. Each owner makes its own pool, so two services in one
// process (npm start) keep their own settings and servers.
import { forkServerLibrary } from './library.js';
import { ForkServer, type ForkServerHooks } from './server.js';

/**
 * A server is replaced after this many runs, so runs do not share one memory layout for long
 * (every child of a server has its parent's; a fresh server gets a fresh one).
 */
export const RUNS_PER_SERVER = 1000;

export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface ForkServerPoolOptions {
  /** Off: serverFor() always answers undefined, and every run starts directly. */
  enabled: boolean;
  hooks: ForkServerHooks;
  logger?: WarnLogger;
  runsPerServer?: number;
  /** The built library; default: forkServerLibrary(). */
  library?: string;
}

export class ForkServerPool {
  private readonly servers = new Map<string, Promise<ForkServer | undefined>>();
  private readonly library: string | undefined;
  private readonly runsPerServer: number;
  private warned = false;
  private closed = false;

  constructor(private readonly options: ForkServerPoolOptions) {
    this.library = options.library ?? forkServerLibrary();
    this.runsPerServer = options.runsPerServer ?? RUNS_PER_SERVER;
  }

  /** The fork server for `bin`, started on first use; undefined: start runs directly. */
  async serverFor(bin: string): Promise<ForkServer | undefined> {
    if (!this.options.enabled || this.closed || process.platform !== 'linux' || !this.library) return undefined;
    let server = this.servers.get(bin);
    const current = await server;
    if (this.servers.get(bin) !== server) return this.serverFor(bin); // replaced meanwhile
    if (current?.usable()) return current;
    if (server && !current) return undefined; // it would not start: direct runs from then on
    if (current) current.retire();
    server = ForkServer.start(bin, this.library, this.options.hooks, this.runsPerServer).catch((err: unknown) => {
      if (!this.warned) {
        this.warned = true;
        this.options.logger?.warn(
          { bin, err: String(err) },
          'ffmpeg fork server unavailable: starting every run directly (about 60 ms more CPU per run)',
        );
      }
      return undefined;
    });
    this.servers.set(bin, server);
    return server;
  }

  /** The sockets of the running servers (tests: what another process could try to connect to). */
  async sockets(): Promise<string[]> {
    return (await Promise.all(this.servers.values())).flatMap((server) => (server ? [server.socket] : []));
  }

  /** Stops every server, killing their runs, and starts no more: the owner is stopping. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.servers.values()];
    this.servers.clear();
    for (const server of await Promise.all(all)) server?.retire(true);
  }
}
