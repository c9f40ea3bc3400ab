// Publish/subscribe with JetStream semantics, over either an in-process adapter or NATS JetStream.
// Payloads are bytes (protobuf-encoded events); subjects look like "media.<service>.<event>".
// The bus's contract, imported by both adapters and the helpers: it imports none of them.

export interface BusMessage {
  subject: string;
  data: Uint8Array;
  /** The publisher's msgId (dedup key), when it gave one. */
  msgId?: string;
  /** 1 on first delivery, 2+ on redelivery. */
  deliveryCount: number;
}

export interface PublishOptions {
  /**
   * Deduplication key: a second publish with the same msgId within the duplicate window
   * (at least 2 minutes) is dropped.
   */
  msgId?: string;
}

export interface SubscribeOptions {
  /**
   * Durable consumer name. Subscribers sharing a durable name share the work (each message goes
   * to one of them) and the consumer remembers its position across restarts: messages published
   * while nobody was subscribed are delivered later.
   * Without a durable name the subscription is a broadcast to this instance only, from "now on".
   */
  durable?: string;
  /** Most deliveries of one message before it is dropped (default 5). */
  maxDeliver?: number;
  /** Redelivery delay after a handler failure, per attempt (ms); the last value repeats. Default [1000]. */
  backoffMs?: number[];
  /** A message not acknowledged within this time is redelivered (default 30000 ms). */
  ackWaitMs?: number;
}

/**
 * Handler: resolve = ack; throw = nak (redelivered after the backoff, up to maxDeliver).
 */
export type Handler = (msg: BusMessage) => Promise<void>;

export interface Subscription {
  /** Stops delivery to this subscriber; a durable consumer keeps its position. */
  stop(): Promise<void>;
}

/**
 * Told about every handler failure; `final` when the message will not be delivered again, else
 * `retryInMs`: the wait before its redelivery (the subscription's backoff schedule).
 */
export type HandlerErrorListener = (error: unknown, msg: BusMessage, final: boolean, retryInMs?: number) => void;

/** Runs one publish; may throw its own error instead (e.g. 503 while the breaker is open). */
export interface PublishGuard {
  run<T>(call: () => Promise<T>): Promise<T>;
}

export interface WorkQueueOptions {
  /** Unacked jobs older than this are dropped (default: the bus's maxAgeMs). */
  maxAgeMs?: number;
  duplicateWindowMs?: number;
}

/** A work-queue stream (JetStream only): each message is consumed once, removed on ack. */
export interface WorkQueue {
  /** Stream name. */
  readonly name: string;
  /** Subject filter the stream captures, e.g. "jobs.queue.>". */
  readonly subject: string;
  /** Enqueue; `subject` must match the queue's subject. msgId dedups as for events. */
  publish(subject: string, data: Uint8Array, options?: PublishOptions): Promise<void>;
  /**
   * Workers share one durable consumer (each job goes to one worker). A work-queue stream accepts
   * only one consumer per subject, so all workers must use the same durable name and filter.
   */
  consume(durable: string, handler: Handler, options?: Omit<SubscribeOptions, 'durable'>): Promise<Subscription>;
}

export interface EventBus {
  publish(subject: string, data: Uint8Array, options?: PublishOptions): Promise<void>;
  subscribe(subject: string, handler: Handler, options?: SubscribeOptions): Promise<Subscription>;
  close(): Promise<void>;
  // What only the JetStream adapter has. Optional members, not an instanceof test, so that
  // nothing loads the NATS client unless NATS is configured.
  /** The same bus with every publish (events and work-queue jobs) run through `guard`. */
  withPublishGuard?(guard: PublishGuard): EventBus;
  /** A work-queue stream: each message goes to one consumer of a durable. */
  createWorkQueue?(name: string, subject: string, options?: WorkQueueOptions): Promise<WorkQueue>;
}

export interface ConnectEventBusOptions {
  /** When set, NATS JetStream; otherwise the in-process adapter. */
  natsUrl?: string;
  /** JetStream stream name holding all subjects below `subjectPrefix` (default "MEDIA_EVENTS"). */
  stream?: string;
  /** Subjects carried (default "media.>"). */
  subjects?: string[];
  /** NATS only: replicas of its streams on a NATS cluster (default 1). */
  streamReplicas?: number;
  /** Handler failures (default: logDroppedMessages, to the console). */
  onError?: HandlerErrorListener;
}
