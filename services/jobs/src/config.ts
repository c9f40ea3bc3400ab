import { defaultRunMemoryBytes, forkServerConfig, speedFloorConfig, urlTargetConfig, WEBHOOK_TIMEOUT_MS } from '@media/media';
import { DEFAULT_FONT_DIRS } from './domain/stages/fontconfig.js';
import { DEFAULT_STAGING_TIMEOUT_MS } from './domain/stages/stage-inputs.js';
import { DEFAULT_SCHEDULE_MS } from './webhooks/schedule.js';
import { commonConfig, env, internalTokenConfig, JOB_TIMEOUT_SEC, PARALLEL_JOBS_PER_ACCOUNT, type ConfigOf } from '@media/platform';

export const jobsConfigSpec = {
  ...commonConfig,
  JOBS_PORT: env.port(50053),
  STORAGE_URL: env.url('http://127.0.0.1:50052'),
  /** Jobs in progress (pending or processing) allowed per account. */
  PARALLEL_JOBS: env.int(PARALLEL_JOBS_PER_ACCOUNT, 1, 10_000),
  /** ffmpeg processes this worker runs at once. */
  WORKER_CONCURRENCY: env.int(2, 1, 256),
  /**
   * MiB of resident memory one ffmpeg run may use before it is stopped (0: no cap); default the
   * machine's (or the container's) memory less a quarter, divided by WORKER_CONCURRENCY.
   */
  JOB_MEMORY_LIMIT_MB: env.optionalInt(0, 100_000_000),
  /** Stagings beyond the free slots: pending jobs whose inputs a busy worker stages ahead (0: none); default WORKER_CONCURRENCY. */
  JOB_STAGE_AHEAD: env.optionalInt(0, 256),
  /** Fetching and checking a task's inputs longer than this fails it (sync and async); not the job's time limit. */
  JOB_STAGING_TIMEOUT_SEC: env.int(DEFAULT_STAGING_TIMEOUT_MS / 1000, 1, 86_400),
  /** A job running longer fails with "Processing timed out" and is not charged. */
  JOB_TIMEOUT_SEC: env.int(JOB_TIMEOUT_SEC, 1, 86_400),
  ...speedFloorConfig,
  /** Per-job work directories (inputs staged, outputs written); default DATA_DIR/jobs/work. */
  WORK_DIR: env.optionalPath(),
  ...urlTargetConfig,
  ...forkServerConfig,
  AUTH_URL: env.url('http://127.0.0.1:50051'),
  /** Sent with every call to Storage and Auth, which check it against INTERNAL_CALLERS. */
  ...internalTokenConfig,
  /** A running async job renews its lease this often x3; a worker that dies loses its jobs after this. */
  JOB_LEASE_SEC: env.int(30, 1, 3600),
  /** Backstop scan for pending jobs and expired leases (dispatch is immediate otherwise). */
  JOB_SCAN_INTERVAL_MS: env.int(2000, 10, 600_000),
  /** Starts of one async job whose worker died before it ends failed. */
  JOB_MAX_ATTEMPTS: env.int(3, 1, 100),
  /** Delays (seconds) before webhook attempts 2..6; about 2 hours in all by default. */
  WEBHOOK_RETRY_SCHEDULE_SEC: env.pattern(
    /^\d+(\.\d+)?(,\d+(\.\d+)?)*$/,
    'comma-separated seconds',
    DEFAULT_SCHEDULE_MS.map((ms) => ms / 1000).join(','),
  ),
  WEBHOOK_TIMEOUT_SEC: env.int(WEBHOOK_TIMEOUT_MS / 1000, 1, 120),
  WEBHOOK_POLL_INTERVAL_MS: env.int(1000, 10, 600_000),
  /** Font directories drawtext and subtitles may use, separated by ':' (fontconfig sees only these). */
  FONT_DIRS: env.pattern(/^\/[^:]*(:\/[^:]*)*$/, 'absolute directories separated by :', DEFAULT_FONT_DIRS.join(':')),
  /**
   * auto: a long encode the planner can split (splitVerdict) runs as parts encoded in parallel and
   * joined by stream copy (docs/api/processing.md); off: every task runs as one ffmpeg process.
   */
  PARALLEL_ENCODE: env.pattern(/^(auto|off)$/, 'auto or off', 'auto'),
  /** Inputs shorter than this (seconds) run whole: splitting them gains too little. */
  PARALLEL_MIN_INPUT_SEC: env.int(60, 1, 86_400),
  /** About how long (seconds of the input) each part is; parts start at keyframes. */
  PARALLEL_PART_SEC: env.int(15, 1, 3600),
  /** Retry-After for 429 (job limit) and 503 (no free slot). */
  BUSY_RETRY_AFTER_SEC: env.int(5, 1, 3600),
};
export type JobsConfig = ConfigOf<typeof jobsConfigSpec>;

/** Resident memory one ffmpeg run may use, in bytes (JOB_MEMORY_LIMIT_MB, else sized from the machine); undefined: no cap. */
export function runMemoryLimitBytes(config: Pick<JobsConfig, 'JOB_MEMORY_LIMIT_MB' | 'WORKER_CONCURRENCY'>): number | undefined {
  const mib = config.JOB_MEMORY_LIMIT_MB;
  if (mib === undefined) return defaultRunMemoryBytes(config.WORKER_CONCURRENCY);
  return mib === 0 ? undefined : mib * 1024 * 1024;
}
