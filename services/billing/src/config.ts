import { commonConfig, env, type ConfigOf } from '@media/platform';

export const billingConfigSpec = { ...commonConfig, BILLING_PORT: env.port(50055) };
export type BillingConfig = ConfigOf<typeof billingConfigSpec>;
