// Small test helpers: unique names per test, message collectors, and waiting with a deadline.
import type { BusMessage, Handler } from '../src/index.js';

let counter = 0;
/** A token unique within this run (subjects and durable names must not collide across tests). */
export function uniq(): string {
  return `${process.pid}${Date.now().toString(36)}${(counter++).toString(36)}`;
}

export const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
export const text = (b: Uint8Array): string => new TextDecoder().decode(b);

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` until it returns true; fails with `what` after timeoutMs. */
export async function waitFor(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(10);
  }
}

export interface Received extends BusMessage {
  text: string;
  at: number;
}

/** A handler that records what it got; `behave` can throw or hang per delivery. */
export function collector(behave?: (msg: Received) => Promise<void> | void): { handler: Handler; got: Received[]; texts(): string[] } {
  const got: Received[] = [];
  const handler: Handler = async (msg) => {
    const r: Received = { ...msg, text: text(msg.data), at: Date.now() };
    got.push(r);
    await behave?.(r);
  };
  return { handler, got, texts: () => got.map((m) => m.text) };
}
