// How handler failures are reported, shared by both adapters.
import type { HandlerErrorListener } from './types.js';

/** Default: retries are expected and quiet; a message given up on after maxDeliver is logged. */
export const logDroppedMessages: HandlerErrorListener = (error, msg, final) => {
  if (final) console.warn(`eventbus: dropping ${msg.subject} after ${msg.deliveryCount} deliveries:`, error);
};

/**
 * A publish that was not acknowledged: NATS down or unreachable, or no PubAck in time (it may
 * still have been stored, so retry with the same msgId). Thrown by the JetStream adapter.
 */
export class PublishError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PublishError';
  }
}
