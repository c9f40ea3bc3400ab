// Small test helpers: unique names per test, message collectors, and waiting with a deadline.
import type { BusMessage, EventBus, Handler } from '../src/index.js';

let counter = 0;
/** A token unique within this run (subjects and durable names must not collide across tests). */
export function uniq(): string {
  return `${process.pid}${Date.now().toString(36)}${(counter++).toString(36)}`;
}

export const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
export const text = (b: Uint8Array): string => new TextDecoder().decode(b);

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` until it returns true; fails with `what` after timeoutMs. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(10);
  }
}

export interface Received extends BusMessage {
  text: string;
  at: number;
}

/** Text of the markers markerSeenByAll publishes; collectors keep them apart from what they got. */
const MARKER = 'marker:';

/** A handler that records what it got (markers apart); `behave` can throw or hang per delivery. */
export function collector(behave?: (msg: Received) => Promise<void> | void): {
  handler: Handler;
  got: Received[];
  markers: string[];
  texts(): string[];
} {
  const got: Received[] = [];
  const markers: string[] = [];
  const handler: Handler = async (msg) => {
    const r: Received = { ...msg, text: text(msg.data), at: Date.now() };
    if (r.text.startsWith(MARKER)) {
      markers.push(r.text);
      return;
    }
    got.push(r);
    await behave?.(r);
  };
  return { handler, got, markers, texts: () => got.map((m) => m.text) };
}

/**
 * Publishes markers on `subject` until each collector has got one. A subscriber gets its messages
 * in publish order, so whatever was published before (a duplicate, a wrong match) has reached it
 * by then: what a quiet period would have waited for.
 */
export async function markerSeenByAll(
  bus: Pick<EventBus, 'publish'>,
  subject: string,
  collectors: Array<{ markers: string[] }>,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // One marker each is enough for a single subscriber; a shared durable hands them out in turn.
  while (!collectors.every((c) => c.markers.length > 0)) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for a marker on ${subject} to reach every subscriber`);
    await bus.publish(subject, bytes(`${MARKER}${uniq()}`));
    const published = Date.now();
    while (!collectors.every((c) => c.markers.length > 0) && Date.now() - published < 200) await sleep(10);
  }
}
