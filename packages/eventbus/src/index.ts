export type {
  BusMessage,
  ConnectEventBusOptions,
  EventBus,
  Handler,
  PublishOptions,
  SubscribeOptions,
  Subscription,
} from './types.js';
export { connectEventBus } from './connect.js';
export { InProcessEventBus, type InProcessEventBusOptions } from './memory/bus.js';
// The JetStream adapter's classes are not re-exported: connectEventBus loads them when NATS is
// configured; tests of the adapter import its modules directly.
export type { JetStreamEventBus, JetStreamEventBusOptions } from './jetstream/bus.js';
export type { WorkQueue, WorkQueueOptions } from './jetstream/work-queue.js';
export { logDroppedMessages, PublishError, type HandlerErrorListener } from './errors.js';
export { guardEventBus, isBusOutage, type PublishGuard } from './guard.js';
export { subjectMatches } from './subjects.js';
export { scheduledDelay } from './retry-schedule.js';
export { natsConnectOptions, type NatsConnectOptions } from './jetstream/nats-url.js';
