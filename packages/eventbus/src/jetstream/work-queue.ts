// Handle on a JetStream work-queue stream (see JetStreamEventBus.createWorkQueue). Work-queue
// retention lets each message be consumed once and removes it on ack, which suits async jobs.
import type { Handler, PublishOptions, SubscribeOptions, Subscription } from '../types.js';

export interface WorkQueueOptions {
  /** Unacked jobs older than this are dropped (default: the bus's maxAgeMs). */
  maxAgeMs?: number;
  duplicateWindowMs?: number;
}

interface Publisher {
  publish(subject: string, data: Uint8Array, options?: PublishOptions): Promise<void>;
}

type SubscribeFn = (subject: string, handler: Handler, options: SubscribeOptions) => Promise<Subscription>;

export class WorkQueue {
  constructor(
    /** Stream name. */
    readonly name: string,
    /** Subject filter the stream captures, e.g. "jobs.queue.>". */
    readonly subject: string,
    private readonly bus: Publisher,
    private readonly subscribeFn: SubscribeFn,
  ) {}

  /** Enqueue; `subject` must match the queue's subject. msgId dedups as for events. */
  publish(subject: string, data: Uint8Array, options?: PublishOptions): Promise<void> {
    return this.bus.publish(subject, data, options);
  }

  /**
   * Workers share one durable consumer (each job goes to one worker). A work-queue stream accepts
   * only one consumer per subject, so all workers must use the same durable name and filter.
   */
  consume(durable: string, handler: Handler, options: Omit<SubscribeOptions, 'durable'> = {}): Promise<Subscription> {
    return this.subscribeFn(this.subject, handler, { ...options, durable });
  }
}
