// Handle on a JetStream work-queue stream (see JetStreamEventBus.createWorkQueue). Work-queue
// retention lets each message be consumed once and removes it on ack, which suits async jobs.
import type { Handler, PublishOptions, SubscribeOptions, Subscription, WorkQueue } from '../types.js';

interface Publisher {
  publish(subject: string, data: Uint8Array, options?: PublishOptions): Promise<void>;
}

type SubscribeFn = (subject: string, handler: Handler, options: SubscribeOptions) => Promise<Subscription>;

export class JetStreamWorkQueue implements WorkQueue {
  constructor(
    readonly name: string,
    readonly subject: string,
    private readonly bus: Publisher,
    private readonly subscribeFn: SubscribeFn,
  ) {}

  publish(subject: string, data: Uint8Array, options?: PublishOptions): Promise<void> {
    return this.bus.publish(subject, data, options);
  }

  consume(durable: string, handler: Handler, options: Omit<SubscribeOptions, 'durable'> = {}): Promise<Subscription> {
    return this.subscribeFn(this.subject, handler, { ...options, durable });
  }
}
