import { commonConfig, env, type ConfigOf } from '@media/platform';

export const jobsConfigSpec = {
  ...commonConfig,
  JOBS_PORT: env.port(50053),
  STORAGE_URL: env.url('http://127.0.0.1:50052'),
  /** Jobs in progress (pending or processing) allowed per account. */
  PARALLEL_JOBS: env.int(50, 1, 10_000),
  /** ffmpeg processes this worker runs at once. */
  WORKER_CONCURRENCY: env.int(2, 1, 256),
  /** A job running longer fails with "Processing timed out" and is not charged. */
  JOB_TIMEOUT_SEC: env.int(3600, 1, 86_400),
  /** Per-job work directories (inputs staged, outputs written); default DATA_DIR/jobs/work. */
  WORK_DIR: env.optionalString(),
  /** Address ranges treated as public for URL inputs (tests only), e.g. "127.0.0.2/32". */
  URL_ALLOWLIST_CIDRS: env.string(''),
  /** PEM file of extra CAs trusted for URL inputs (tests, private PKI). */
  URL_CA_FILE: env.optionalString(),
  /** Retry-After for 429 (job limit) and 503 (no free slot). */
  BUSY_RETRY_AFTER_SEC: env.int(5, 1, 3600),
};
export type JobsConfig = ConfigOf<typeof jobsConfigSpec>;
