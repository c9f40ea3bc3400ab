// @media/mongo-wire: a MongoDB-wire-compatible server for tests (bson + mingo, in memory).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { WireServer, type WireServerOptions } from './server.js';
import type { WorkerReply, WorkerRequest } from './worker.js';

export { WireServer, type WireServerOptions } from './server.js';

export interface RunningWireServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /**
   * Drops every connection and stops listening, runs `whileDown` (if given), then listens again
   * on the same port with the same data (fault tests). Listens again even if `whileDown` throws.
   */
  restart(whileDown?: () => Promise<void> | void): Promise<void>;
}

/** Starts a server on 127.0.0.1 (port 0 = any free port). */
export async function startMongoWireServer(opts: WireServerOptions = {}): Promise<RunningWireServer> {
  const server = new WireServer(opts);
  const port = await server.listen(opts.port ?? 0);
  return {
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    port,
    stop: () => server.stop(),
    async restart(whileDown) {
      await server.stop();
      try {
        await whileDown?.();
      } finally {
        await server.listen(port);
      }
    },
  };
}

// The built worker, found from src/ (tests run the sources) and from dist/ alike.
const WORKER_JS = fileURLToPath(new URL('../dist/worker.js', import.meta.url));

/**
 * The same server in a worker thread. Under jest the test's code runs in a vm context, where every
 * lookup of a global such as Date or RegExp is slow enough to make mingo's matching several times
 * slower; a worker runs it in a plain realm, and off the test's own thread. Needs the build
 * (`tsc -b`, which `npm test` runs first); without it, the in-process server.
 */
export async function startMongoWireWorker(opts: WireServerOptions = {}): Promise<RunningWireServer> {
  if (!existsSync(WORKER_JS)) return startMongoWireServer(opts);
  const worker = new Worker(WORKER_JS, { workerData: opts });
  worker.unref();
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  let failed: Error | undefined;
  const fail = (err: Error) => {
    failed ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the mongo-wire worker exited (code ${code})`)));
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: WorkerReply) => ('port' in m ? resolve(m.port) : reject(new Error('mongo-wire worker: no port'))));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the mongo-wire worker exited before listening (code ${code})`)));
  });
  worker.on('message', (m: WorkerReply) => {
    if (!('id' in m)) return;
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) p?.reject(new Error(m.error));
    else p?.resolve();
  });
  let next = 0;
  const ask = (op: WorkerRequest['op']) =>
    new Promise<void>((resolve, reject) => {
      if (failed) return reject(failed);
      const id = ++next;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, op } satisfies WorkerRequest);
    });
  return {
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    port,
    async stop() {
      if (failed) return;
      await ask('stop');
      await worker.terminate();
    },
    async restart(whileDown) {
      await ask('stop');
      try {
        await whileDown?.();
      } finally {
        await ask('listen');
      }
    },
  };
}
