// In-memory message log for the in-process adapter: bounded retention (count and age) and a msgId
// dedup window, so durable consumers can resume from a sequence like they do on JetStream.

export interface StoredMessage {
  seq: number;
  subject: string;
  data: Uint8Array;
  msgId?: string;
  time: number;
}

export interface MemoryStreamOptions {
  maxMessages: number;
  maxAgeMs: number;
  duplicateWindowMs: number;
  now?: () => number;
}

export class MemoryStream {
  private readonly messages: StoredMessage[] = [];
  /** Sequence of messages[0]; sequences start at 1 like JetStream. */
  private firstSeq = 1;
  /** msgId -> publish time; insertion order is time order, so expiry trims from the front. */
  private readonly recentIds = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: MemoryStreamOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Sequence the next stored message will get. */
  get nextSeq(): number {
    return this.firstSeq + this.messages.length;
  }

  /** Appends a message; returns undefined when its msgId was seen within the duplicate window. */
  append(subject: string, data: Uint8Array, msgId?: string): StoredMessage | undefined {
    const now = this.now();
    this.expire(now);
    if (msgId !== undefined) {
      if (this.recentIds.has(msgId)) return undefined;
      this.recentIds.set(msgId, now);
    }
    // Copy: the publisher may reuse its buffer, and JetStream would hold its own copy too.
    const msg: StoredMessage = { seq: this.nextSeq, subject, data: Uint8Array.from(data), msgId, time: now };
    this.messages.push(msg);
    return msg;
  }

  /** First message with seq >= fromSeq accepted by `match`, if still retained. */
  findFrom(fromSeq: number, match: (subject: string) => boolean): StoredMessage | undefined {
    this.expire(this.now());
    for (let i = Math.max(0, fromSeq - this.firstSeq); i < this.messages.length; i++) {
      const msg = this.messages[i]!;
      if (match(msg.subject)) return msg;
    }
    return undefined;
  }

  /** The message with this sequence, if still retained (a redelivery of a trimmed message is dropped). */
  get(seq: number): StoredMessage | undefined {
    return this.messages[seq - this.firstSeq];
  }

  private expire(now: number): void {
    const { maxMessages, maxAgeMs, duplicateWindowMs } = this.options;
    let drop = Math.max(0, this.messages.length - maxMessages);
    while (drop < this.messages.length && now - this.messages[drop]!.time > maxAgeMs) drop++;
    if (drop > 0) {
      this.messages.splice(0, drop);
      this.firstSeq += drop;
    }
    for (const [id, time] of this.recentIds) {
      if (now - time <= duplicateWindowMs) break;
      this.recentIds.delete(id);
    }
  }
}
