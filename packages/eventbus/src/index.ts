// The bus's contract: every type of types.ts is public.
export type * from './types.js';
export { connectEventBus } from './connect.js';
export { InProcessEventBus, type InProcessEventBusOptions } from './memory/bus.js';
// The JetStream adapter's classes are not re-exported: connectEventBus loads them when NATS is
// configured; tests of the adapter import its modules directly.
export type { JetStreamEventBus, JetStreamEventBusOptions } from './jetstream/bus.js';
export { logDroppedMessages, PublishError } from './errors.js';
export { guardEventBus, isBusOutage } from './guard.js';
export { subjectMatches } from './subjects.js';
export { scheduledDelay } from './retry-schedule.js';
export { natsConnectOptions, type NatsConnectOptions } from './jetstream/nats-url.js';
