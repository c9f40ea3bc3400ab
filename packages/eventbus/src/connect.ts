// Picks the adapter from configuration: NATS JetStream when a URL is given, else in-process. The
// NATS client is loaded only then (an embedded start does not pay its memory and start-up time).
import { InProcessEventBus } from './memory/bus.js';
import type { ConnectEventBusOptions, EventBus } from './types.js';

export async function connectEventBus(options: ConnectEventBusOptions = {}): Promise<EventBus> {
  if (options.natsUrl) {
    const { JetStreamEventBus } = await import('./jetstream/bus.js');
    return JetStreamEventBus.connect({
      natsUrl: options.natsUrl,
      stream: options.stream,
      subjects: options.subjects,
      replicas: options.streamReplicas,
      onError: options.onError,
    });
  }
  return new InProcessEventBus({ subjects: options.subjects, onError: options.onError });
}
