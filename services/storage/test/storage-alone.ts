// Storage on its own, for the suites of its signed-URL listener: a fake Auth that answers every
// account active, an in-process bus and a data directory of its own. start() again on the same
// data is a restart (the same STORAGE_HTTP_PORT keeps the signed URLs' address); `shiftMs` moves
// the clock Storage sees. Registers its own beforeAll/afterAll: call it at the top of a suite.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { createServiceClient, loadConfig, type ServiceClient } from '@media/platform';
import { startStorage, storageConfigSpec, type RunningStorage } from '../src/index.js';
import { startFakeAuth } from './fake-auth.js';

export interface StorageAloneOptions {
  /** Settings of every start (read at each: an S3 server's address is known only then). */
  base?: () => Record<string, string>;
  /** Settings of a start given none. */
  defaults?: Record<string, string>;
}

export function storageAlone(prefix: string, opts: StorageAloneOptions = {}) {
  let bus: EventBus;
  let auth: Awaited<ReturnType<typeof startFakeAuth>>;
  let storage: RunningStorage | undefined;
  let rpc: ServiceClient<typeof StorageService> | undefined;
  const alone = {
    dataDir: '',
    /** Added to the system clock as Storage sees it. */
    shiftMs: 0,
    get running(): RunningStorage | undefined {
      return storage;
    },
    /** Starts Storage; `httpPort` keeps the signed URLs' address across a restart. */
    async start(httpPort = '0', env: Record<string, string> = opts.defaults ?? {}) {
      const config = loadConfig(storageConfigSpec, {
        DATA_DIR: alone.dataDir,
        LOG_LEVEL: 'silent',
        STORAGE_PORT: '0',
        STORAGE_HTTP_PORT: httpPort,
        STORAGE_HTTP_HOST: '127.0.0.1',
        AUTH_URL: auth.url,
        ...opts.base?.(),
        ...env,
      });
      storage = await startStorage(config, { bus }, { now: () => new Date(Date.now() + alone.shiftMs) });
      rpc = createServiceClient(StorageService, storage.url);
      return rpc.client;
    },
    /** The running Storage's client, started with the defaults when none runs. */
    async client() {
      return rpc?.client ?? (await alone.start());
    },
    async stop() {
      rpc?.close();
      await storage?.close();
      rpc = storage = undefined;
    },
  };
  beforeAll(async () => {
    bus = await connectEventBus({});
    auth = await startFakeAuth();
    alone.dataDir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await alone.stop();
    await bus?.close();
    await auth?.close();
    await rm(alone.dataDir, { recursive: true, force: true });
  });
  return alone;
}
