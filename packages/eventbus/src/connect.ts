// Picks the adapter from configuration: NATS JetStream when a URL is given, else in-process.
import { InProcessEventBus } from './memory/bus.js';
import { JetStreamEventBus } from './jetstream/bus.js';
import type { ConnectEventBusOptions, EventBus } from './types.js';

export async function connectEventBus(options: ConnectEventBusOptions = {}): Promise<EventBus> {
  if (options.natsUrl) {
    return JetStreamEventBus.connect({ natsUrl: options.natsUrl, stream: options.stream, subjects: options.subjects });
  }
  return new InProcessEventBus({ subjects: options.subjects });
}
