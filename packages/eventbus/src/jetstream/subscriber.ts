// One subscription on a JetStream pull consumer: consume() loop, handler dispatch, ack/nak/term.
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, nuid } from '@nats-io/nats-core';
import type { ResolvedSubscribeOptions } from '../options.js';
import { scheduledDelay } from '../retry-schedule.js';
import type { BusMessage, Handler, HandlerErrorListener, Subscription } from '../types.js';

/** A non-durable subscription's consumer is removed by the server after this long without pulls. */
const EPHEMERAL_INACTIVE_MS = 5 * 60 * 1000;
/** Pause before retrying to recreate a lost consumer. */
const RETRY_MS = 1000;

export interface SubscriberContext {
  js: JetStreamClient;
  jsm: JetStreamManager;
  onError: HandlerErrorListener;
  /** Handlers still running, so close() can let them finish before draining. */
  inflight: Set<Promise<void>>;
  /** Messages one consume() keeps pulled ahead. */
  batch: number;
  /** True once the connection is closed for good (the loop must not try to recreate then). */
  isClosed: () => boolean;
}

export interface JetStreamSubscription extends Subscription {
  /** Stop; for a non-durable subscription also deletes its consumer. */
  stop(): Promise<void>;
}

export async function startSubscriber(
  ctx: SubscriberContext,
  stream: string,
  filter: string,
  handler: Handler,
  cfg: ResolvedSubscribeOptions,
  /** Start from the stream's first message (work queues) instead of messages published from now on. */
  deliverAll = false,
): Promise<JetStreamSubscription> {
  const durable = cfg.durable;
  const name = durable ?? `eph_${nuid.next()}`;
  const config: Partial<ConsumerConfig> = {
    ack_policy: AckPolicy.Explicit,
    // New: an event consumer gets messages published after it was first created (then keeps its
    // position). A work queue keeps only unconsumed jobs, so its consumer starts at the first one.
    deliver_policy: deliverAll ? DeliverPolicy.All : DeliverPolicy.New,
    ack_wait: nanos(cfg.ackWaitMs),
    max_deliver: cfg.maxDeliver,
    filter_subject: filter, // server 2.9: a single filter_subject (no filter_subjects)
    ...(durable !== undefined ? { durable_name: durable } : { name, inactive_threshold: nanos(EPHEMERAL_INACTIVE_MS) }),
  };
  await createOrUpdateConsumer(ctx.jsm, stream, name, config);
  let stopped = false;
  let messages = await openConsume(ctx, stream, name);
  let wakeRetry: (() => void) | undefined;

  const dispatch = async (m: JsMsg): Promise<void> => {
    const msgId = m.headers?.get('Nats-Msg-Id');
    const msg: BusMessage = {
      subject: m.subject,
      data: m.data,
      deliveryCount: m.info.deliveryCount,
      ...(msgId ? { msgId } : {}),
    };
    try {
      await handler(msg);
    } catch (err) {
      // term on the last attempt so the server drops it now rather than after ack_wait.
      if (msg.deliveryCount >= cfg.maxDeliver) {
        ctx.onError(err, msg, true);
        settle(() => m.term());
        return;
      }
      const retryInMs = scheduledDelay(cfg.backoffMs, msg.deliveryCount);
      ctx.onError(err, msg, false, retryInMs);
      settle(() => m.nak(retryInMs));
      return;
    }
    settle(() => m.ack());
  };

  const drain = async (current: ConsumerMessages): Promise<void> => {
    // consume() keeps pulling across reconnects, but cannot bring back a consumer the server lost
    // (an ephemeral past inactive_threshold, an admin delete). On "consumer_deleted" it would only
    // stall until heartbeats are missed (~30 s): end it so the loop below recreates and reopens.
    // "consumer_not_found" comes from its own retry loop: recreating is enough there.
    void (async () => {
      for await (const s of current.status()) {
        if (s.type === 'consumer_deleted') await current.close();
        else if (s.type === 'consumer_not_found') await createOrUpdateConsumer(ctx.jsm, stream, name, config);
      }
    })().catch(() => {});
    for await (const m of current) {
      if (stopped) {
        settle(() => m.nak()); // pulled ahead but not handled: give it straight back to the others
        continue;
      }
      // Handlers run concurrently (bounded by the consumer's max_ack_pending): a hung handler must
      // not block the rest, and its message is redelivered after ack_wait.
      const p = dispatch(m).finally(() => ctx.inflight.delete(p));
      ctx.inflight.add(p);
    }
  };

  // Wait that stop() can cut short.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopped) return resolve();
      const timer = setTimeout(resolve, ms);
      wakeRetry = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = (async () => {
    for (;;) {
      const started = Date.now();
      await drain(messages).catch(() => {});
      // The iterator ends on stop, on connection close, or after "consumer_deleted" (above):
      // recreate the consumer and consume again, at most once per RETRY_MS (no tight loop).
      if (stopped || ctx.isClosed()) return;
      await pause(Math.max(0, RETRY_MS - (Date.now() - started)));
      while (!stopped && !ctx.isClosed()) {
        try {
          await createOrUpdateConsumer(ctx.jsm, stream, name, config);
          messages = await openConsume(ctx, stream, name);
          break;
        } catch {
          await pause(RETRY_MS);
        }
      }
      if (stopped || ctx.isClosed()) {
        await messages.close().catch(() => {}); // opened while stop() was closing the previous one
        return;
      }
    }
  })();

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      wakeRetry?.();
      await messages.close().catch(() => {});
      await loop;
      if (durable === undefined) await ctx.jsm.consumers.delete(stream, name).catch(() => {});
    },
  };
}

async function openConsume(ctx: SubscriberContext, stream: string, name: string): Promise<ConsumerMessages> {
  const consumer = await ctx.js.consumers.get(stream, name);
  return consumer.consume({ max_messages: ctx.batch });
}

/**
 * Server 2.9 treats "create" of an existing durable as create-or-update; 2.10+ honours the
 * client's create action and refuses a changed config, so fall back to an explicit update.
 */
async function createOrUpdateConsumer(jsm: JetStreamManager, stream: string, name: string, config: Partial<ConsumerConfig>): Promise<void> {
  try {
    await jsm.consumers.add(stream, config);
  } catch (err) {
    if (!(err instanceof JetStreamApiError) || config.durable_name === undefined) throw err;
    const { ack_wait, max_deliver, filter_subject } = config;
    await jsm.consumers.update(stream, name, { ack_wait, max_deliver, filter_subject }).catch(() => {
      throw err; // the create error says more than the update's
    });
  }
}

/** ack/nak/term throw once the connection is closed; the server then redelivers after ack_wait. */
function settle(fn: () => void): void {
  try {
    fn();
  } catch {
    // connection gone: nothing to tell the server
  }
}
