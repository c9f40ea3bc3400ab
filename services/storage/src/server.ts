import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import {
  blobStoreConfigFromEnv,
  createBlobStore,
  createSignedBlobHandler,
  createUrlSigner,
  guardBlobStore,
  isBlobStoreOutage,
  withListenerUploads,
} from '@media/blobstore';
import {
  createServiceClient,
  DEFAULT_CONSOLE_URL,
  dependencyGuard,
  diskReserve,
  Events,
  internalCallerInterceptors,
  serving,
  startService,
  subscribeEvent,
  type RunningService,
  type SharedInfra,
} from '@media/platform';
import { authAccountStatuses } from './adapters/auth-accounts.js';
import { openStorageRepository } from './adapters/repository.js';
import { listenSignedUrls, type SignedUrlListener } from './adapters/signed-url-listener.js';
import { signingSecret } from './adapters/signing-secret.js';
import { s3Settings, uploadCorsOrigins, uploadsThroughListener, type StorageConfig } from './config.js';
import { createAccountGate } from './domain/account-gate.js';
import { createParts } from './domain/parts.js';
import { createStorage } from './domain/storage.js';
import { startSweeper, startTempSweep, startTusSweep } from './domain/sweeper.js';
import { diskTusParts } from './adapters/tus-disk-parts.js';
import { createTusUploads, isTusRequest, type TusUploads } from './adapters/tus-uploads.js';
import { createUploadHooks } from './domain/uploads.js';
import { createStorageService } from './service.js';

export interface RunningStorage extends RunningService {
  /** Base of the listener's signed URLs (local disk; S3 with S3_UPLOADS=storage; else undefined). */
  publicBaseUrl?: string;
}

/**
 * JOBS_WORK_DIR resolved, and whether it is usable: never a directory holding Storage's own files
 * (blobs, signing secret) or lying inside them.
 */
function jobsWorkDir(config: StorageConfig): { dir?: string; problem?: string } {
  if (config.JOBS_WORK_DIR === 'off') return {};
  const dir = resolve(config.JOBS_WORK_DIR ?? join(config.DATA_DIR, 'jobs', 'work'));
  const own = resolve(config.DATA_DIR, 'storage');
  const within = (parent: string, child: string) => {
    const rel = relative(parent, child);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  };
  if (within(dir, own) || within(own, dir)) return { problem: `the Jobs work directory ${dir} overlaps Storage's own directory ${own}` };
  return { dir };
}

export interface StorageTestOptions {
  /** The clock of the rules and the listener's URLs (tests of expiry); default the system's. */
  now?: () => Date;
}

export async function startStorage(config: StorageConfig, shared?: SharedInfra, options: StorageTestOptions = {}): Promise<RunningStorage> {
  const now = options.now ?? (() => new Date());
  let listener: SignedUrlListener | undefined;
  let publicBaseUrl: string | undefined;
  let tus: TusUploads | undefined;
  const running = await startService(
    'storage',
    config,
    config.STORAGE_PORT,
    async (infra) => {
      const repo = await openStorageRepository(infra.store);
      // The account's status on every upload request, from Auth; a change announced by Auth (to
      // every replica: no durable name) is forgotten at once.
      const auth = createServiceClient(AuthService, config.AUTH_URL, {
        interceptors: internalCallerInterceptors('storage', config.INTERNAL_TOKEN),
      });
      const accounts = createAccountGate({
        statuses: authAccountStatuses(auth.client),
        cacheMs: config.ACCOUNT_STATUS_CACHE_SEC * 1000,
        links: { consoleUrl: config.CONSOLE_URL ?? DEFAULT_CONSOLE_URL, supportContact: config.SUPPORT_CONTACT },
      });
      const statusChanges = await subscribeEvent(infra.bus, Events.accountStatusChanged, async (e) => accounts.forget(e.accountId));
      // The listener takes uploads on local disk, and on S3 with S3_UPLOADS=storage.
      const viaListener = uploadsThroughListener(config);
      if (viaListener) {
        listener = await listenSignedUrls(config.STORAGE_HTTP_HOST, config.STORAGE_HTTP_PORT, infra.logger, {
          headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_SEC * 1000,
          caps: { perAddress: config.CONNECTIONS_PER_ADDRESS, total: config.MAX_CONNECTIONS },
          minUploadBytesPerSec: config.UPLOAD_MIN_BYTES_PER_SEC,
          // On S3 each upload in progress holds parts in TMPDIR or memory: bounded per replica.
          ...(config.S3_BUCKET?.trim()
            ? { uploadCaps: { total: config.S3_UPLOADS_IN_FLIGHT, perAddress: config.S3_UPLOADS_PER_ADDRESS } }
            : {}),
        });
        publicBaseUrl = config.PUBLIC_BASE_URL ?? `http://localhost:${listener.port}`;
      }
      const secret = await signingSecret(config.BLOB_SIGNING_SECRET, join(config.DATA_DIR, 'storage', 'signing-secret'));
      const stores = blobStoreConfigFromEnv(s3Settings(config), {
        dataDir: join(config.DATA_DIR, 'storage'),
        publicBaseUrl: publicBaseUrl ?? 'http://localhost',
        signingSecret: secret,
      });
      // The listener's URLs expire on the rules' clock, whichever backend signs them.
      const backend = await createBlobStore({ ...stores, local: { ...stores.local, now: () => now().getTime() } });
      // S3 with S3_UPLOADS=storage: upload URLs are the listener's, verified with the same secret.
      const signer =
        backend.kind === 's3' && viaListener
          ? createUrlSigner({ publicBaseUrl: publicBaseUrl!, secret, now: () => now().getTime() })
          : undefined;
      const store = signer && backend.kind === 's3' ? withListenerUploads(backend, signer) : backend;
      // S3 behind a breaker: while it is down, calls that need it answer 503 at once.
      const blobs = store.kind === 's3' ? guardBlobStore(store, dependencyGuard('s3', isBlobStoreOutage, { logger: infra.logger })) : store;
      // Uploads land on this host's disk only with local blobs (S3 keeps its own space).
      const disk = backend.kind === 'local' ? diskReserve(join(config.DATA_DIR, 'storage'), config.DISK_RESERVE_MB, 'storage') : undefined;
      if (listener) {
        const hooks = createUploadHooks(
          repo,
          now,
          (err, requestId) => infra.logger.error({ err, requestId }, 'signed URL request failed'),
          disk,
          accounts,
        );
        const verifier = backend.kind === 'local' ? backend : signer!;
        const plain = createSignedBlobHandler(blobs, verifier, hooks);
        // Resumable (tus) uploads on the same signed upload URLs; everything else as before.
        const corsOrigins = uploadCorsOrigins(config);
        tus = createTusUploads({
          blobs,
          verifier,
          repo,
          parts:
            backend.kind === 'local'
              ? diskTusParts(backend, join(config.DATA_DIR, 'storage', 'tus'))
              : (await import('./adapters/tus-s3-parts.js')).s3TusParts(backend, { uploadsInFlight: config.S3_UPLOADS_IN_FLIGHT }),
          publicBaseUrl: publicBaseUrl ?? 'http://localhost',
          now,
          ...(disk ? { disk } : {}),
          accounts,
          ...(corsOrigins ? { allowedOrigins: corsOrigins } : {}),
          onError: (err) => infra.logger.error({ err }, 'resumable upload request failed'),
        });
        const resumable = tus;
        listener.setHandler((req, res) => (isTusRequest(req) ? resumable.handle(req, res) : plain(req, res)));
      }
      const work = backend.kind === 'local' ? jobsWorkDir(config) : {};
      if (work.problem)
        infra.logger.warn(
          {},
          `job outputs are streamed, not stored in place: ${work.problem} (point JOBS_WORK_DIR at the Jobs work directory, outside DATA_DIR/storage, or set it to "off")`,
        );
      const localSourceDir = work.dir;
      const storage = createStorage({ repo, blobs, now, localSourceDir, directUploads: !viaListener, ...(disk ? { disk } : {}) });
      const sweeper = startSweeper({ repo, blobs, bus: infra.bus, logger: infra.logger, intervalMs: config.SWEEP_INTERVAL_SEC * 1000 });
      // Part-written uploads a crash left behind: at start, then with each sweep.
      const tempSweep = backend.kind === 'local' ? startTempSweep(backend, config.SWEEP_INTERVAL_SEC * 1000, infra.logger) : undefined;
      // Parts of resumable uploads whose URL expired (or whose file went): at start, then each sweep.
      const tusSweep = tus ? startTusSweep(tus, config.SWEEP_INTERVAL_SEC * 1000, infra.logger) : undefined;
      return {
        ...serving(StorageService, createStorageService(storage, blobs, createParts({ blobs, ...(disk ? { disk } : {}) }))),
        async close() {
          await sweeper.stop();
          tempSweep?.stop();
          await tusSweep?.stop();
          await listener?.close();
          await statusChanges.stop();
          auth.close();
        },
      };
    },
    shared,
  );
  return { ...running, publicBaseUrl };
}
