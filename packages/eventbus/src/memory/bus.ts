// In-process adapter: the EventBus semantics of the JetStream adapter inside one Node process
// (all services in one process, no NATS). State lives only as long as the bus object.
import { DEFAULT_DUPLICATE_WINDOW_MS, DEFAULT_MAX_AGE_MS, DEFAULT_SUBJECTS, resolveSubscribeOptions } from '../options.js';
import { assertDurableName, assertFilter, assertPublishSubject, filterWithin, subjectMatches } from '../subjects.js';
import type { EventBus, Handler, HandlerErrorListener, PublishOptions, SubscribeOptions, Subscription } from '../types.js';
import { logDroppedMessages } from '../errors.js';
import { MemoryConsumer } from './consumer.js';
import { MemoryStream } from './stream.js';

export interface InProcessEventBusOptions {
  /** Subjects accepted, as a JetStream stream would (default ["media.>"]). */
  subjects?: string[];
  /** Retention: at most this many messages (default 10,000) ... */
  maxMessages?: number;
  /** ... no older than this (default 7 days). */
  maxAgeMs?: number;
  /** msgId dedup window (default 2 minutes). */
  duplicateWindowMs?: number;
  /** Unacknowledged messages per consumer before delivery pauses (default 1000, as JetStream). */
  maxAckPending?: number;
  /** Handler failures; default logs only messages that are dropped after maxDeliver. */
  onError?: HandlerErrorListener;
  /** The clock of the duplicate window and retention (default Date.now; tests pass their own). */
  now?: () => number;
}

export class InProcessEventBus implements EventBus {
  private readonly stream: MemoryStream;
  private readonly subjects: string[];
  private readonly durables = new Map<string, MemoryConsumer>();
  private readonly ephemerals = new Set<MemoryConsumer>();
  private readonly maxAckPending: number;
  private readonly onError: HandlerErrorListener;
  private closed = false;

  constructor(options: InProcessEventBusOptions = {}) {
    this.subjects = options.subjects ?? DEFAULT_SUBJECTS;
    this.subjects.forEach(assertFilter);
    this.stream = new MemoryStream({
      maxMessages: options.maxMessages ?? 10_000,
      maxAgeMs: options.maxAgeMs ?? DEFAULT_MAX_AGE_MS,
      duplicateWindowMs: options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS,
      now: options.now,
    });
    this.maxAckPending = options.maxAckPending ?? 1000;
    this.onError = options.onError ?? logDroppedMessages;
  }

  async publish(subject: string, data: Uint8Array, options: PublishOptions = {}): Promise<void> {
    this.assertOpen();
    assertPublishSubject(subject);
    // Same failure as JetStream when no stream captures the subject.
    if (!this.subjects.some((f) => subjectMatches(f, subject))) {
      throw new Error(`no stream carries subject "${subject}" (subjects: ${this.subjects.join(', ')})`);
    }
    if (!this.stream.append(subject, data, options.msgId)) return; // duplicate msgId: dropped
    for (const c of this.durables.values()) c.pump();
    for (const c of this.ephemerals) c.pump();
  }

  async subscribe(subject: string, handler: Handler, options: SubscribeOptions = {}): Promise<Subscription> {
    this.assertOpen();
    assertFilter(subject);
    if (!this.subjects.some((outer) => filterWithin(subject, outer))) {
      throw new Error(`subject filter "${subject}" is not within the bus subjects (${this.subjects.join(', ')})`);
    }
    const config = resolveSubscribeOptions(options);
    if (config.durable === undefined) {
      const consumer = new MemoryConsumer(this.stream, subject, config, this.maxAckPending, this.onError);
      this.ephemerals.add(consumer);
      consumer.addSubscriber(handler);
      return {
        stop: async () => {
          consumer.close();
          this.ephemerals.delete(consumer);
        },
      };
    }
    assertDurableName(config.durable);
    let consumer = this.durables.get(config.durable);
    if (consumer) {
      // Re-subscribing updates the shared consumer's settings, as a JetStream consumer update does.
      consumer.filter = subject;
      consumer.config = config;
    } else {
      consumer = new MemoryConsumer(this.stream, subject, config, this.maxAckPending, this.onError);
      this.durables.set(config.durable, consumer);
    }
    const remove = consumer.addSubscriber(handler);
    let stopped = false;
    return {
      stop: async () => {
        if (stopped) return;
        stopped = true;
        remove(); // the consumer keeps its position and pending messages for the next subscriber
      },
    };
  }

  /** Messages the durable `name` has delivered and not had acknowledged yet (0 for an unknown one). */
  unacked(name: string): number {
    return this.durables.get(name)?.unacked ?? 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.durables.values()) c.close();
    for (const c of this.ephemerals) c.close();
    this.durables.clear();
    this.ephemerals.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event bus is closed');
  }
}
