// Starts a real nats-server (JetStream on, loopback only, free port, temp store dir) for tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { findBinary } from './binaries.js';
import { freePorts, waitForPort } from './ports.js';
import { stopProcess } from './stop-process.js';
import { tempDir, underCI } from './tmp.js';

export interface NatsTestServer {
  /** nats://127.0.0.1:<port> */
  url: string;
  /** Stops the server and removes its store dir (no-op for an external NATS_URL server). */
  stop(): Promise<void>;
  /**
   * Stops and starts the server again on the same port and store dir (fault tests). `whileDown`,
   * if given, runs after the stop and before the start, to observe behaviour during the outage;
   * the server is started again even if it throws (and its error is then rethrown).
   */
  restart(whileDown?: () => Promise<void> | void): Promise<void>;
}

const STOP_TIMEOUT_MS = 5000;
const READY_TIMEOUT_MS = 15000;

const findNatsServer = (): string | undefined => findBinary('nats-server');

/** True when a nats-server binary can be spawned (or an external server is given by NATS_URL). */
export function natsAvailable(): boolean {
  return Boolean(process.env.NATS_URL) || findNatsServer() !== undefined;
}

/** True when a nats-server binary can be spawned here (an external NATS_URL server aside). */
export const canSpawnNats = (): boolean => findNatsServer() !== undefined;

/**
 * Starts nats-server, or uses NATS_URL when set (unless a user is asked for: that one is spawned). When the binary is missing this throws:
 * callers that want to skip outside CI should check natsAvailable() first.
 */
export async function startNatsServer(options: { user?: string; pass?: string } = {}): Promise<NatsTestServer> {
  const external = process.env.NATS_URL;
  if (external && options.user === undefined) {
    return {
      url: external,
      stop: async () => {},
      restart: async () => {
        throw new Error('restart() is not possible with an external server (NATS_URL is set)');
      },
    };
  }
  const bin = findNatsServer();
  if (!bin) {
    const hint = 'install it (apt-get install -y nats-server) or set NATS_URL';
    throw new Error(underCI ? `nats-server not found and CI=true: NATS tests must not skip; ${hint}` : `nats-server not found; ${hint}`);
  }
  // With a user, clients must log in (tests of credentials in NATS_URL).
  const authArgs = options.user === undefined ? [] : ['--user', options.user, '--pass', options.pass ?? ''];
  const [port] = await freePorts(1);
  const store = await tempDir('nats-test-');
  let child: ChildProcess | undefined;
  try {
    child = await spawnServer(bin, port, store.path, authArgs);
  } catch (err) {
    await store.remove();
    throw err;
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      if (child) await stopProcess(child, { graceMs: STOP_TIMEOUT_MS });
      child = undefined;
      await store.remove();
    },
    async restart(whileDown) {
      if (child) await stopProcess(child, { graceMs: STOP_TIMEOUT_MS });
      child = undefined;
      try {
        await whileDown?.();
      } finally {
        child = await spawnServer(bin, port, store.path, authArgs);
      }
    },
  };
}

async function spawnServer(bin: string, port: number, storeDir: string, extraArgs: string[] = []): Promise<ChildProcess> {
  const child = spawn(bin, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir, ...extraArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Keep the tail of the log for error messages; nats-server logs to stderr.
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  // If the test process exits without stop(), do not leave a server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));

  const exited = new AbortController();
  child.once('exit', (code, signal) => exited.abort(new Error(`nats-server exited early (code ${code}, signal ${signal}):\n${log}`)));
  child.once('error', (err) => exited.abort(err));
  try {
    // The server listens only once JetStream has recovered.
    await waitForPort(port, READY_TIMEOUT_MS, 'nats-server', exited.signal);
  } catch (err) {
    await stopProcess(child, { graceMs: STOP_TIMEOUT_MS });
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(message.includes(log) ? message : `${message}\n${log}`);
  }
  return child;
}
