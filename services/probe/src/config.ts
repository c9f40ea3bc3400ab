import { commonConfig, env, type ConfigOf } from '@media/platform';

export const probeConfigSpec = { ...commonConfig, PROBE_PORT: env.port(50054) };
export type ProbeConfig = ConfigOf<typeof probeConfigSpec>;
