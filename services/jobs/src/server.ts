import { exposeLive } from './domain/metrics.js';
import { join } from 'node:path';
import { AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { type ForkServersOption, openMediaRuntime, startWorkSweeper, WORK_SWEEP_INTERVAL_MS, WORK_SWEEP_MARGIN_MS } from '@media/media';
import {
  admissionOwner,
  resultItemJson,
  usageJson,
  createServiceClient,
  internalCallerInterceptors,
  diskReserve,
  Errors,
  Events,
  publishEvent,
  serving,
  startService,
  traceCarrier,
  type RunningService,
  type SharedInfra,
} from '@media/platform';
import { openJobsRepository } from './adapters/repository.js';
import { openPartsRepository } from './adapters/parts-repository.js';
import { PART_POLL_MS, type SplitPartsDeps } from './domain/split-parts/split-parts-deps.js';
import { clearJob } from './domain/split-parts/distribute.js';
import { runMemoryLimitBytes, type JobsConfig } from './config.js';
import { keepAdmissions, releaseOwned } from './domain/admissions.js';
import { createBackground } from './domain/background.js';
import { openDispatch } from './domain/dispatch.js';
import { Slots } from './domain/slots.js';
import { createOutputStore } from './domain/stages/store-outputs.js';
import { startWorker, type WorkerOptions } from './domain/worker.js';
import { withTrace, type JobDoc } from './domain/job-doc.js';
import { createJobsService } from './service.js';
import { createWebhookDeliverer, type WebhookBody } from './webhooks/index.js';

function webhookBody(job: JobDoc): WebhookBody {
  const completed = job.status === 'completed';
  return {
    event: completed ? 'job.completed' : 'job.failed',
    job_id: job._id,
    status: completed ? 'completed' : 'failed',
    request_id: job._id,
    ...(completed
      ? {
          result: job.result.map(resultItemJson),
          usage: usageJson(job.usage ?? undefined),
          amount_usd: job.amountUsd!,
        }
      : { error: job.error ?? Errors.internal().message }),
    completed_at: (job.completedAt ?? new Date()).toISOString(),
  };
}

/** Test-only deps (not config, so no deployment sets them by accident). */
export type JobsTestDeps = Pick<WorkerOptions, 'onAdmissionReleased'>;

export function startJobs(
  config: JobsConfig,
  shared?: SharedInfra,
  options: ForkServersOption & JobsTestDeps = {},
): Promise<RunningService> {
  return startService(
    'jobs',
    config,
    config.JOBS_PORT,
    async (infra) => {
      const repo = await openJobsRepository(infra.store);
      const parts = await openPartsRepository(infra.store);
      const { forkServers, releaseForkServers, allowlist, ca } = await openMediaRuntime(config, options, infra.logger);
      const caller = { interceptors: internalCallerInterceptors('jobs', config.INTERNAL_TOKEN) };
      const storage = createServiceClient(StorageService, config.STORAGE_URL, caller);
      const auth = createServiceClient(AuthService, config.AUTH_URL, caller);
      const webhooks = await createWebhookDeliverer({
        store: infra.store,
        getSecrets: async (accountId) => {
          const { secret, previousSecrets } = await auth.client.getWebhookSecret({ accountId });
          return [secret, ...previousSecrets];
        },
        logger: infra.logger,
        allowlist,
        ca,
        scheduleMs: config.WEBHOOK_RETRY_SCHEDULE_SEC.split(',').map((s) => Math.round(Number(s) * 1000)),
        attemptTimeoutMs: config.WEBHOOK_TIMEOUT_SEC * 1000,
        pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      });
      const dispatch = await openDispatch(infra.bus);
      const background = createBackground();
      // What a previous run left in progress (a crash): released at once. This process's sync
      // requests, and the probes of a Probe service run on this host with this DATA_DIR (npm start
      // runs both in one process); a Probe elsewhere that died is released when its lease lapses.
      const owner = admissionOwner('jobs', config);
      // A split sync run's parts go with it: no other replica should encode them now.
      const clearParts = (jobId: string) =>
        clearJob({ parts, storage: storage.client, logger: infra.logger }, jobId).catch(() => undefined);
      for (const previous of [owner, admissionOwner('probe', config)]) await releaseOwned(repo, previous, infra.logger, clearParts);
      const admissions = keepAdmissions(repo, owner, config.ADMISSION_LEASE_SEC * 1000, infra.logger);
      const workRoot = config.WORK_DIR ?? join(config.DATA_DIR, 'jobs', 'work');
      const deps = {
        repo,
        storage: storage.client,
        outputs: createOutputStore(storage.client, infra.logger),
        bus: infra.bus,
        logger: infra.logger,
        slots: new Slots(config.WORKER_CONCURRENCY),
        workRoot,
        disk: diskReserve(workRoot, config.DISK_RESERVE_MB, 'jobs'),
        parallelJobs: config.PARALLEL_JOBS,
        busyRetryAfterSec: config.BUSY_RETRY_AFTER_SEC,
        timeoutMs: config.JOB_TIMEOUT_SEC * 1000,
        stagingTimeoutMs: config.JOB_STAGING_TIMEOUT_SEC * 1000,
        allowlist,
        ca,
        dispatch,
        checkWebhook: (url: string) => webhooks.check(url),
        background,
        fontDirs: config.FONT_DIRS.split(':'),
        speedFloor: { minSpeed: config.FFMPEG_MIN_SPEED, windowMs: config.FFMPEG_SPEED_WINDOW_SEC * 1000 },
        admissions,
        urlMinBytesPerSec: config.URL_MIN_BYTES_PER_SEC,
        forkServers,
        runBounds: { runs: config.WORKER_CONCURRENCY, memoryLimitBytes: runMemoryLimitBytes(config) },
        ...(config.PARALLEL_ENCODE === 'auto'
          ? { split: { minInputSec: config.PARALLEL_MIN_INPUT_SEC, partSec: config.PARALLEL_PART_SEC } }
          : {}),
        // Parts on the work queue, for any replica's free slot: only where replicas can share the
        // store (MongoDB); the embedded one serves one process, whose own slots run every part.
        ...(config.PARALLEL_ENCODE === 'auto' && config.MONGODB_URL
          ? {
              splitParts: {
                parts,
                offer: (offer) => publishEvent(infra.bus, Events.partsOffered, offer),
                leaseMs: config.JOB_LEASE_SEC * 1000,
                maxAttempts: config.JOB_MAX_ATTEMPTS,
                pollMs: PART_POLL_MS,
              } satisfies SplitPartsDeps,
            }
          : {}),
      };
      const worker = startWorker(
        deps,
        dispatch,
        {
          leaseMs: config.JOB_LEASE_SEC * 1000,
          scanIntervalMs: config.JOB_SCAN_INTERVAL_MS,
          maxAttempts: config.JOB_MAX_ATTEMPTS,
          stageAhead: config.JOB_STAGE_AHEAD ?? config.WORKER_CONCURRENCY,
          onAdmissionReleased: options.onAdmissionReleased,
        },
        async (job) => {
          if (job.webhookUrl)
            await webhooks.enqueue({
              jobId: job._id,
              accountId: job.accountId,
              url: job.webhookUrl,
              body: webhookBody(job),
              // Under the run that finished it (or, failed by a scan, the request that submitted it).
              ...withTrace(traceCarrier() ?? job.trace),
            });
        },
      );
      webhooks.start();
      const hideLive = exposeLive({
        queued: () => repo.countQueued(),
        running: () => deps.slots.inUse,
        webhookBacklog: () => webhooks.backlog(),
      });
      // A run lasts at most the time limit; a job staged ahead may wait about one more for its slot.
      // A staging (its own deadline) then a wait for a slot (about a run) then the run.
      const oldest = deps.stagingTimeoutMs + 2 * deps.timeoutMs + WORK_SWEEP_MARGIN_MS;
      const sweeper = startWorkSweeper(deps.workRoot, oldest, WORK_SWEEP_INTERVAL_MS, infra.logger);
      // Once: on shutdown the worker stops first (no async job is claimed while sync calls drain).
      let workerStopped: Promise<void> | undefined;
      const stopWorker = () => (workerStopped ??= worker.stop());
      return {
        ...serving(JobsService, createJobsService(repo, deps, worker.wake)),
        stopTakingWork: stopWorker,
        async close() {
          hideLive();
          sweeper.stop();
          await background.stop();
          await stopWorker();
          await webhooks.stop();
          storage.close();
          auth.close();
          // Last: sync calls still draining keep their leases until they end.
          admissions.keeper.stop();
          await releaseForkServers();
        },
      };
    },
    shared,
  );
}
