// NATS JetStream adapter: one limits-retention stream for all events (default MEDIA_EVENTS on
// "media.>"), a pull consumer per subscription (durable: shared and persistent; non-durable:
// a per-subscription ephemeral consumer, so dedup/nak/maxDeliver behave the same for both).
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { logDroppedMessages, PublishError } from '../errors.js';
import { DEFAULT_DUPLICATE_WINDOW_MS, DEFAULT_MAX_AGE_MS, DEFAULT_STREAM, DEFAULT_SUBJECTS, resolveSubscribeOptions } from '../options.js';
import { assertDurableName, assertFilter, assertPublishSubject } from '../subjects.js';
import type {
  EventBus,
  Handler,
  HandlerErrorListener,
  PublishGuard,
  PublishOptions,
  SubscribeOptions,
  Subscription,
  WorkQueue,
  WorkQueueOptions,
} from '../types.js';
import { ConnectionWatch } from './connection.js';
import { natsConnectOptions } from './nats-url.js';
import { ensureStream } from './streams.js';
import { startSubscriber, type JetStreamSubscription, type SubscriberContext } from './subscriber.js';
import { JetStreamWorkQueue } from './work-queue.js';

/** The least time a stream or consumer management request is given. */
const MANAGEMENT_TIMEOUT_MS = 5000;

export interface JetStreamEventBusOptions {
  natsUrl: string;
  /** Stream holding all events (default "MEDIA_EVENTS"). */
  stream?: string;
  /** Subjects it carries (default ["media.>"]). */
  subjects?: string[];
  maxAgeMs?: number;
  duplicateWindowMs?: number;
  /** Replicas of the streams it creates on a NATS cluster (default 1; 3 survives a node's loss). */
  replicas?: number;
  /** A publish rejects after this long without a PubAck, or while disconnected (default 5000). */
  publishTimeoutMs?: number;
  /** Pause between reconnect attempts (default 1000); attempts never stop. */
  reconnectTimeWaitMs?: number;
  /** Connection name shown by the server (monitoring). */
  name?: string;
  /** close() waits this long for running handlers before draining (default 10000). */
  closeTimeoutMs?: number;
  /** Messages each subscription pulls ahead (default 100). */
  batch?: number;
  onError?: HandlerErrorListener;
  /**
   * How long the start waits for JetStream to answer its stream setup (default 60000): a cluster
   * still electing its leader, or with too few nodes up for the streams' replicas, times out or
   * answers "temporarily unavailable" until it is whole; the start asks again meanwhile.
   */
  startTimeoutMs?: number;
}

/** JetStream answers that say "not yet" (no leader, too few nodes up) rather than "no". */
const NOT_YET = /timeout|timed out|no responders|temporarily unavailable|insufficient resources|no suitable peers|not ready/i;

/** What a bus and its guarded views (withPublishGuard) share besides the connection. */
interface BusState {
  subs: Set<JetStreamSubscription>;
  inflight: Set<Promise<void>>;
  closed: boolean;
}

export class JetStreamEventBus implements EventBus {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly watch: ConnectionWatch,
    private readonly options: Required<Omit<JetStreamEventBusOptions, 'name' | 'natsUrl'>>,
    private readonly state: BusState = { subs: new Set(), inflight: new Set(), closed: false },
    private readonly guard?: PublishGuard,
  ) {}

  /**
   * The same bus (connection, subscriptions, close) with every publish, events and work-queue
   * jobs alike, run through `guard` (a circuit breaker: see guardEventBus).
   */
  withPublishGuard(guard: PublishGuard): JetStreamEventBus {
    return new JetStreamEventBus(this.nc, this.js, this.jsm, this.watch, this.options, this.state, guard);
  }

  /** Connects (the server must be reachable now; later outages are reconnected) and ensures the stream. */
  static async connect(options: JetStreamEventBusOptions): Promise<JetStreamEventBus> {
    const resolved: Required<Omit<JetStreamEventBusOptions, 'name' | 'natsUrl'>> = {
      stream: DEFAULT_STREAM,
      subjects: DEFAULT_SUBJECTS,
      maxAgeMs: DEFAULT_MAX_AGE_MS,
      duplicateWindowMs: DEFAULT_DUPLICATE_WINDOW_MS,
      replicas: 1,
      publishTimeoutMs: 5000,
      reconnectTimeWaitMs: 1000,
      closeTimeoutMs: 10_000,
      batch: 100,
      startTimeoutMs: 60_000,
      onError: logDroppedMessages,
      ...stripUndefined(options),
    };
    resolved.subjects.forEach(assertFilter);
    const nc = await connect({
      ...natsConnectOptions(options.natsUrl),
      name: options.name,
      reconnect: true,
      maxReconnectAttempts: -1,
      waitOnFirstConnect: false,
      reconnectTimeWait: resolved.reconnectTimeWaitMs,
    });
    const watch = new ConnectionWatch(nc); // from the start, so no disconnect goes unnoticed
    try {
      // Stream and consumer management (at start, and as subscribers come and go) gets at least
      // 5 s, however short the publish timeout: on a loaded machine or a replicated stream (R3, a
      // Raft round) it takes longer than a publish, and failing it fails the start.
      const setUp = async () => {
        const jsm = await jetstreamManager(nc, { timeout: Math.max(resolved.publishTimeoutMs, MANAGEMENT_TIMEOUT_MS) });
        await ensureStream(jsm, {
          name: resolved.stream,
          subjects: resolved.subjects,
          retention: 'limits',
          maxAgeMs: resolved.maxAgeMs,
          duplicateWindowMs: resolved.duplicateWindowMs,
          replicas: resolved.replicas,
        });
        return jsm;
      };
      const jsm = await untilReady(setUp, resolved.startTimeoutMs);
      const js = jetstream(nc, { timeout: resolved.publishTimeoutMs });
      return new JetStreamEventBus(nc, js, jsm, watch, resolved);
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  async publish(subject: string, data: Uint8Array, options: PublishOptions = {}): Promise<void> {
    this.assertOpen();
    assertPublishSubject(subject);
    const send = () => this.send(subject, data, options);
    return this.guard ? this.guard.run(send) : send();
  }

  private async send(subject: string, data: Uint8Array, options: PublishOptions): Promise<void> {
    const deadline = Date.now() + this.options.publishTimeoutMs;
    try {
      await this.watch.waitConnected(this.options.publishTimeoutMs);
      // A duplicate msgId is acknowledged with duplicate=true and not stored: nothing to do.
      await this.js.publish(subject, data, {
        timeout: Math.max(1000, deadline - Date.now()),
        ...(options.msgId !== undefined ? { msgID: options.msgId } : {}),
      });
    } catch (err) {
      // A timed-out publish may still have been stored: callers retry with the same msgId.
      throw new PublishError(`publish to ${subject} failed: ${(err as Error).message}`, { cause: err });
    }
  }

  async subscribe(subject: string, handler: Handler, options: SubscribeOptions = {}): Promise<Subscription> {
    return this.subscribeOn(this.options.stream, subject, handler, options);
  }

  /**
   * A separate work-queue stream (JetStream WorkQueue retention: a message is removed once acked),
   * for job queues rather than events. Its subject must not overlap this bus's event subjects
   * (e.g. "jobs.queue.>" next to "media.>"); consume it with one durable shared by all workers.
   */
  async createWorkQueue(name: string, subject: string, options: WorkQueueOptions = {}): Promise<WorkQueue> {
    this.assertOpen();
    assertFilter(subject);
    await ensureStream(this.jsm, {
      name,
      subjects: [subject],
      retention: 'workqueue',
      maxAgeMs: options.maxAgeMs ?? this.options.maxAgeMs,
      duplicateWindowMs: options.duplicateWindowMs ?? this.options.duplicateWindowMs,
      replicas: this.options.replicas,
    });
    return new JetStreamWorkQueue(name, subject, this, (s, h, o) => this.subscribeOn(name, s, h, o, true));
  }

  /** Stops subscriptions, lets running handlers finish (bounded by closeTimeoutMs), then drains. */
  async close(): Promise<void> {
    if (this.state.closed) return;
    this.state.closed = true;
    await Promise.all([...this.state.subs].map((s) => s.stop()));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.state.inflight]),
      new Promise((r) => (timer = setTimeout(r, this.options.closeTimeoutMs))),
    ]);
    clearTimeout(timer);
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }

  private async subscribeOn(
    stream: string,
    subject: string,
    handler: Handler,
    options: SubscribeOptions,
    deliverAll = false,
  ): Promise<Subscription> {
    this.assertOpen();
    assertFilter(subject);
    const cfg = resolveSubscribeOptions(options);
    if (cfg.durable !== undefined) assertDurableName(cfg.durable);
    const ctx: SubscriberContext = {
      js: this.js,
      jsm: this.jsm,
      onError: this.options.onError,
      inflight: this.state.inflight,
      batch: this.options.batch,
      isClosed: () => this.nc.isClosed(),
    };
    const sub = await startSubscriber(ctx, stream, subject, handler, cfg, deliverAll);
    this.state.subs.add(sub);
    return {
      stop: async () => {
        this.state.subs.delete(sub);
        await sub.stop();
      },
    };
  }

  private assertOpen(): void {
    if (this.state.closed) throw new Error('event bus is closed');
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Runs `setUp` again while JetStream says "not yet", for up to `withinMs`; other errors at once. */
async function untilReady<T>(setUp: () => Promise<T>, withinMs: number): Promise<T> {
  const until = Date.now() + withinMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await setUp();
    } catch (err) {
      if (!NOT_YET.test((err as Error).message ?? '') || Date.now() >= until) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, 2000, Math.max(0, until - Date.now()))));
    }
  }
}
