import { commonConfig, env, type ConfigOf } from '@media/platform';

export const jobsConfigSpec = {
  ...commonConfig,
  JOBS_PORT: env.port(50053),
  /** Jobs in progress (pending or processing) allowed per account. */
  PARALLEL_JOBS: env.int(50, 1, 10_000),
};
export type JobsConfig = ConfigOf<typeof jobsConfigSpec>;
