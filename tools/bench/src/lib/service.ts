// The service under test: the built `npm start` entrypoint in its own process (so its RSS and
// CPU are its own), plus what a benchmark needs to drive it: accounts and keys made over the
// console API, JSON calls, and streaming uploads through the signed URLs.
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { AuthAdminService, AccountStatus } from '@media/proto/media/auth/v1/auth_pb.js';
import { createServiceClient } from '@media/platform';
import { spawnStack, type Spawned } from '@media/testkit';

export interface Service {
  stack: Spawned;
  /** A new active account with `keys` API keys; returns their Authorization header values. */
  account(keys?: number): Promise<{ accountId: string; authorizations: string[] }>;
  /** Resolves once the process has been up `ms` (see run.ts: start-up garbage collections). */
  settled(ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Profile the service's main thread; the .cpuprofile is written here on close (cpu-profile-preload.ts). */
  profileDir?: string;
}

const PROFILER = fileURLToPath(new URL('./cpu-profile-preload.js', import.meta.url));

export async function startService(env: Record<string, string> = {}, options: ServiceOptions = {}): Promise<Service> {
  const startedAt = performance.now();
  const { profileDir } = options;
  const nodeOptions = [env.NODE_OPTIONS, profileDir && `--import=${PROFILER}`].filter(Boolean).join(' ');
  const profiling: Record<string, string> = profileDir ? { BENCH_PROFILE_DIR: profileDir } : {};
  const stack = await spawnStack({ LOG_LEVEL: 'error', ...profiling, ...env, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) });
  const adminUrl = (await readFile(join(stack.dataDir, 'run', 'auth-admin-url'), 'utf8')).trim();
  const { client: admin, close } = createServiceClient(AuthAdminService, adminUrl, { breaker: false });
  return {
    stack,
    async account(keys = 1) {
      const { account } = await admin.createAccount({ status: AccountStatus.ACTIVE });
      const accountId = account!.accountId;
      const authorizations: string[] = [];
      for (let i = 0; i < keys; i++) authorizations.push((await admin.createKey({ accountId, name: `bench-${i}` })).authorization);
      return { accountId, authorizations };
    },
    async settled(ms) {
      const left = startedAt + ms - performance.now();
      if (left > 0) await new Promise((r) => setTimeout(r, left));
    },
    async close() {
      close();
      if (profileDir) await writeProfile(stack.proc.pid!, profileDir);
      await stack.stop();
    },
  };
}

/** Asks the preload to write its profile and waits for the file (the service is killed next). */
async function writeProfile(pid: number, dir: string): Promise<void> {
  const file = join(dir, `service-${pid}.cpuprofile`);
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100; i++) {
    if (
      await stat(file).then(
        (s) => s.size > 0,
        () => false,
      )
    ) {
      await new Promise((r) => setTimeout(r, 200)); // writeFileSync: whole once it has a size, but be sure
      process.stderr.write(`  CPU profile: ${file}\n`);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no CPU profile from the service at ${file}`);
}

export type Api = <T = Record<string, any>>(method: string, path: string, body?: unknown) => Promise<T>;

/** JSON calls with one key; any non-2xx answer throws with the body (a benchmark must not count errors). */
export function api(baseUrl: string, authorization: string): Api {
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
    return JSON.parse(text);
  };
}

/** Streams a PUT of `file` to a signed upload URL; resolves when the server answered 2xx. */
export async function putFile(url: string, headers: Record<string, string>, file: string): Promise<void> {
  const size = (await stat(file)).size;
  await new Promise<void>((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { ...headers, 'content-length': String(size) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode! < 300 ? resolve() : reject(new Error(`PUT -> ${res.statusCode}`))));
    });
    req.on('error', reject);
    pipeline(createReadStream(file, { highWaterMark: 1 << 20 }), req).catch(reject);
  });
}

/** Registers `name` in a new directory (or `dirId`) and uploads `file` into it; returns its file_path. */
export async function upload(call: Api, file: string, name: string, dirId?: string): Promise<string> {
  const reg = await call('POST', '/file', { file_name: name, ...(dirId ? { dir_id: dirId } : {}) });
  await putFile(reg.upload.url, reg.upload.headers ?? {}, file);
  return reg.file.file_path as string;
}
