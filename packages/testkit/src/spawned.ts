// Runs the built `npm start` entrypoint as a child process on ephemeral ports in a temp DATA_DIR.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const root = resolve(import.meta.dirname, '../../..');
export const startJs = join(root, 'tools/start/dist/start.js');
export const adminJs = join(root, 'tools/admin/dist/admin.js');
export const run = promisify(execFile);

export interface Spawned {
  proc: ChildProcess;
  baseUrl: string;
  env: Record<string, string | undefined>;
  /** What npm start printed on stderr up to and including its "is up" banner. */
  banner: string;
  /** What the process logged on stdout so far (pino JSON lines). */
  logs(): string;
  /** Resident set size of the service process, from /proc. */
  rss(): Promise<number>;
  admin(...args: string[]): Promise<Record<string, unknown>>;
  dataDir: string;
  /** DATA_DIR as this process reads and writes it (under /proc/<pid>/root when on a tmpfs of its own). */
  dataDirHere: string;
  /** SIGKILL, keeping the data directory. */
  kill(): Promise<void>;
  /** SIGKILL and remove the data directory. */
  stop(): Promise<void>;
}

export function stackEnv(dataDir: string): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    // The public ports; the internal ones are free ports by default under npm start.
    PORT: '0',
    STORAGE_HTTP_PORT: '0',
    STORAGE_HTTP_HOST: '127.0.0.1',
    DOCS_PORT: '0',
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    DOCS_HOST: '127.0.0.1',
    CONSOLE_PORT: '0',
    CONSOLE_HOST: '127.0.0.1',
    // Test machines may have less than the default reserve free; the reserve's own tests set theirs.
    DISK_RESERVE_MB: '64',
  };
}

export interface SpawnOptions {
  /**
   * DATA_DIR on a tmpfs of this size, mounted in a mount namespace of the service's own
   * (`unshare -Urm`, so no privilege is needed and nothing outlives the process): a small disk
   * a test can fill. This process reaches it as `dataDirHere`.
   */
  tmpfsBytes?: number;
}

/**
 * Starts `npm start`; pass `dataDir` to start again on the data of an earlier run, and `cwd` to
 * run it from another working directory (DATA_DIR may then be relative to it).
 */
export async function spawnStack(
  overrides: Record<string, string> = {},
  existingDataDir?: string,
  cwd?: string,
  opts: SpawnOptions = {},
): Promise<Spawned> {
  const dataDir = existingDataDir ?? (await mkdtemp(join(tmpdir(), 'media-start-')));
  const env = { ...stackEnv(dataDir), ...overrides };
  const proc =
    opts.tmpfsBytes === undefined
      ? spawn(process.execPath, [startJs], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(
          'unshare',
          [
            '-Urm',
            'sh',
            '-c',
            'mount -t tmpfs -o "size=$1" tmpfs "$DATA_DIR" && shift && exec "$@"',
            'sh',
            String(opts.tmpfsBytes),
            process.execPath,
            startJs,
          ],
          {
            env,
            cwd,
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
  // unshare and sh exec in turn: the pid is the service's, and its root shows its mounts.
  const dataDirHere = opts.tmpfsBytes === undefined ? dataDir : `/proc/${proc.pid}/root${resolve(cwd ?? '.', env.DATA_DIR ?? dataDir)}`;
  // The admin CLI finds the service through DATA_DIR: the one this process can read.
  const adminEnv = opts.tmpfsBytes === undefined ? env : { ...env, DATA_DIR: dataDirHere };
  const stdout: string[] = [];
  proc.stdout!.on('data', (d) => stdout.push(String(d)));
  let stderr = '';
  const banner = await new Promise<string>((resolveBanner, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up:\n${stderr}`)), 30_000);
    proc.stderr!.on('data', (d) => {
      stderr += String(d);
      if (/Press Ctrl-C to stop\./.test(stderr)) {
        clearTimeout(timer);
        resolveBanner(stderr);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}:\n${stderr}`));
    });
  });
  async function kill(): Promise<void> {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await new Promise((r) => proc.once('exit', r));
    }
  }
  return {
    proc,
    baseUrl: /API \(gateway\):\s+(\S+)/.exec(banner)![1]!,
    env,
    banner,
    logs: () => stdout.join(''),
    async rss() {
      const status = await readFile(`/proc/${proc.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
    },
    async admin(...args: string[]) {
      const { stdout } = await run(process.execPath, [adminJs, ...args], { env: adminEnv, cwd });
      const lines = stdout.trim().split('\n');
      if (lines.length !== 1) throw new Error(`admin printed ${lines.length} lines`);
      return JSON.parse(lines[0]!);
    },
    dataDir,
    dataDirHere,
    kill,
    async stop() {
      await kill();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
