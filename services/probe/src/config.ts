import { forkServerConfig, urlTargetConfig } from '@media/media';
import { commonConfig, env, internalTokenConfig, JOB_TIMEOUT_SEC, type ConfigOf } from '@media/platform';

export const probeConfigSpec = {
  ...commonConfig,
  PROBE_PORT: env.port(50054),
  STORAGE_URL: env.url('http://127.0.0.1:50052'),
  /** Admission: probes count toward the account's 50 jobs in progress, kept by Jobs. */
  JOBS_URL: env.url('http://127.0.0.1:50053'),
  /** Sent with every call to Storage and Jobs, which check it against INTERNAL_CALLERS. */
  ...internalTokenConfig,
  /** A probe (staging and ffprobe) running longer fails with "Processing timed out", not charged. */
  JOB_TIMEOUT_SEC: env.int(JOB_TIMEOUT_SEC, 1, 86_400),
  /** Per-probe work directories (the staged copy); default DATA_DIR/probe/work. */
  WORK_DIR: env.optionalPath(),
  ...urlTargetConfig,
  ...forkServerConfig,
};
export type ProbeConfig = ConfigOf<typeof probeConfigSpec>;
