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
export { JetStreamEventBus, type JetStreamEventBusOptions } from './jetstream/bus.js';
export { WorkQueue, type WorkQueueOptions } from './jetstream/work-queue.js';
export { logDroppedMessages, PublishError, type HandlerErrorListener } from './errors.js';
export { guardEventBus, isBusOutage, type PublishGuard } from './guard.js';
export { subjectMatches } from './subjects.js';
