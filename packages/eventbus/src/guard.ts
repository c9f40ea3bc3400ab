// Publishing through one guard (a circuit breaker: platform's dependencyGuard), applied once where
// a service opens its bus. Only the JetStream adapter can fail to reach its broker.
import { PublishError } from './errors.js';
import type { EventBus, PublishGuard } from './types.js';

/**
 * The bus with every publish (events and work-queue jobs) run through `guard`. A JetStream bus
 * gives a view on the same connection (still a JetStreamEventBus); the in-process bus has nothing
 * to be cut off from and is returned as it is.
 */
export function guardEventBus(bus: EventBus, guard: PublishGuard): EventBus {
  return bus.withPublishGuard ? bus.withPublishGuard(guard) : bus;
}

/** A publish NATS did not acknowledge (down, unreachable, no PubAck in time); not a bad subject or a closed bus. */
export function isBusOutage(err: unknown): boolean {
  return err instanceof PublishError;
}
