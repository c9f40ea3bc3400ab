// Deletes expired directories with their blobs. Safe with several replicas: each directory is
// claimed atomically first (a claim older than 10 minutes is taken over, in case a replica died).
import type { BlobStore, LocalDiskBlobStore } from '@media/blobstore';
import type { EventBus } from '@media/eventbus';
import { Events, publishEvent, toTimestamp, type Logger } from '@media/platform';
import type { StorageRepository } from './ports.js';
import { dirPrefix } from './storage.js';

const STALE_CLAIM_MS = 10 * 60_000;

export async function sweepOnce(deps: { repo: StorageRepository; blobs: BlobStore; bus: EventBus; now?: () => Date }): Promise<number> {
  const now = deps.now ?? (() => new Date());
  let swept = 0;
  for (;;) {
    const at = now();
    const dir = await deps.repo.claimExpired(at, new Date(at.getTime() - STALE_CLAIM_MS));
    if (!dir) return swept;
    const fileCount = await deps.repo.countFiles(dir._id);
    await deps.blobs.deletePrefix(dirPrefix(dir.accountId, dir._id));
    await deps.repo.deleteFiles(dir._id);
    await deps.repo.deleteDirectory(dir._id);
    await publishEvent(
      deps.bus,
      Events.directoryExpired,
      { accountId: dir.accountId, dirId: dir._id, expiredAt: toTimestamp(dir.expiresAt), fileCount },
      `directory-expired:${dir._id}`,
    );
    swept++;
  }
}

export function startSweeper(deps: Parameters<typeof sweepOnce>[0] & { intervalMs: number; logger: Logger }): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = sweepOnce(deps).then(
      (n) => n && deps.logger.info({ directories: n }, 'swept expired directories'),
      (err) => deps.logger.error({ err }, 'sweep failed; will retry'),
    );
  }, deps.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * An upload's part-written file is removed by its own put, finished or failed; one left by a
 * crash is removed once idle this long (an upload that stalls for 60 s is cut, so a live one
 * is never this old).
 */
export const TEMP_IDLE_MS = 15 * 60_000;

export function startTempSweep(
  blobs: Pick<LocalDiskBlobStore, 'sweepTemp'>,
  intervalMs: number,
  logger: Logger,
  idleMs = TEMP_IDLE_MS,
): { stop(): void } {
  const sweep = () =>
    void blobs.sweepTemp(idleMs).then(
      (n) => n && logger.info({ files: n }, 'removed part-written uploads left by a crash'),
      (err) => logger.error({ err }, 'could not sweep part-written uploads; will retry'),
    );
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * Removes the parts of resumable uploads that can no longer complete (expired, gone). One sweep
 * at a time (a slow S3 listing must not overlap the next); stop waits for the one running.
 */
export function startTusSweep(tus: { sweep(): Promise<number> }, intervalMs: number, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= tus
      .sweep()
      .then(
        (n) => void (n && logger.info({ uploads: n }, 'removed the parts of abandoned resumable uploads')),
        (err) => logger.error({ err }, 'could not sweep resumable uploads; will retry'),
      )
      .finally(() => (running = undefined));
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
