// One in-memory consumer: JetStream-like delivery state for a durable (shared by its subscribers)
// or for a single non-durable subscription. Redelivery is driven by unref'd timers, never polling.
import type { ResolvedSubscribeOptions } from '../options.js';
import { scheduledDelay } from '../retry-schedule.js';
import { subjectMatches } from '../subjects.js';
import type { BusMessage, Handler, HandlerErrorListener } from '../types.js';
import type { MemoryStream, StoredMessage } from './stream.js';

interface Pending {
  seq: number;
  /** Deliveries so far; the current delivery's deliveryCount. */
  deliveries: number;
  /** inflight: handler running (ack-wait timer set); backoff: waiting to be redelivered; ready: queued. */
  state: 'inflight' | 'backoff' | 'ready';
  timer?: NodeJS.Timeout;
}

export class MemoryConsumer {
  private nextSeq: number;
  private readonly pending = new Map<number, Pending>();
  /** Sequences due for redelivery, oldest first. */
  private readonly ready: number[] = [];
  private readonly subscribers: Handler[] = [];
  private turn = 0;
  private pumping = false;
  private closed = false;

  constructor(
    private readonly stream: MemoryStream,
    public filter: string,
    public config: ResolvedSubscribeOptions,
    private readonly maxAckPending: number,
    private readonly onError: HandlerErrorListener,
  ) {
    // Like DeliverPolicy.New: only messages published after the consumer was created.
    this.nextSeq = stream.nextSeq;
  }

  /** Adds a subscriber (messages are split round-robin) and returns its remover. */
  addSubscriber(handler: Handler): () => void {
    // Wrap so the same function subscribed twice is still two subscribers.
    const entry: Handler = (msg) => handler(msg);
    this.subscribers.push(entry);
    this.pump();
    return () => {
      const i = this.subscribers.indexOf(entry);
      if (i >= 0) this.subscribers.splice(i, 1);
    };
  }

  get subscriberCount(): number {
    return this.subscribers.length;
  }

  /** Messages delivered (or due for redelivery) and not yet acknowledged. */
  get unacked(): number {
    return this.pending.size;
  }

  /** Delivers whatever is due: redeliveries first, then new messages, within maxAckPending. */
  pump(): void {
    if (this.pumping || this.closed) return; // re-entrant calls are covered by the running loop
    this.pumping = true;
    try {
      while (this.subscribers.length > 0) {
        const seq = this.ready.shift();
        if (seq !== undefined) {
          const p = this.pending.get(seq);
          if (p?.state !== 'ready') continue; // acked or dropped meanwhile
          const msg = this.stream.get(seq);
          if (msg) this.deliver(p, msg);
          else this.pending.delete(seq); // trimmed by retention
          continue;
        }
        if (this.pending.size >= this.maxAckPending) break;
        const msg = this.stream.findFrom(this.nextSeq, (subject) => subjectMatches(this.filter, subject));
        if (!msg) {
          this.nextSeq = this.stream.nextSeq;
          break;
        }
        this.nextSeq = msg.seq + 1;
        const p: Pending = { seq: msg.seq, deliveries: 0, state: 'ready' };
        this.pending.set(msg.seq, p);
        this.deliver(p, msg);
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Stops all timers and forgets pending state (bus close, or a non-durable subscription stop). */
  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    this.ready.length = 0;
    this.subscribers.length = 0;
  }

  private deliver(p: Pending, stored: StoredMessage): void {
    const handler = this.subscribers[this.turn++ % this.subscribers.length]!;
    p.deliveries++;
    p.state = 'inflight';
    const attempt = p.deliveries;
    p.timer = setTimeout(() => this.ackWaitExpired(p, attempt), this.config.ackWaitMs);
    p.timer.unref();
    const msg: BusMessage = {
      subject: stored.subject,
      data: stored.data.slice(), // each delivery gets its own buffer, as from the network
      deliveryCount: attempt,
      ...(stored.msgId !== undefined ? { msgId: stored.msgId } : {}),
    };
    // Deferred so a handler never runs inside publish()/subscribe(), and sync throws become rejections.
    Promise.resolve()
      .then(() => handler(msg))
      .then(
        () => this.ack(p),
        (err: unknown) => this.nak(p, attempt, msg, err),
      );
  }

  private ack(p: Pending): void {
    // Any delivery's success acks the message, also a late one after an ack-wait redelivery (as JetStream).
    if (this.pending.get(p.seq) !== p) return;
    clearTimeout(p.timer);
    this.pending.delete(p.seq);
    this.pump();
  }

  private nak(p: Pending, attempt: number, msg: BusMessage, err: unknown): void {
    if (this.closed || this.pending.get(p.seq) !== p || p.deliveries !== attempt) return; // stale attempt
    clearTimeout(p.timer);
    const final = attempt >= this.config.maxDeliver;
    if (final) {
      this.onError(err, msg, true);
      this.pending.delete(p.seq);
      this.pump();
      return;
    }
    const retryInMs = scheduledDelay(this.config.backoffMs, attempt);
    this.onError(err, msg, false, retryInMs);
    p.state = 'backoff';
    p.timer = setTimeout(() => this.makeReady(p), retryInMs);
    p.timer.unref();
  }

  private ackWaitExpired(p: Pending, attempt: number): void {
    if (this.pending.get(p.seq) !== p || p.deliveries !== attempt || p.state !== 'inflight') return;
    if (attempt >= this.config.maxDeliver) {
      this.pending.delete(p.seq); // no more deliveries; JetStream likewise stops redelivering
      this.pump();
      return;
    }
    this.makeReady(p);
  }

  private makeReady(p: Pending): void {
    if (this.pending.get(p.seq) !== p) return;
    p.state = 'ready';
    p.timer = undefined;
    this.ready.push(p.seq);
    this.pump();
  }
}
