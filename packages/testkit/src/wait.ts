// Waiting on an event (a state, a count, a log line) with a deadline, instead of a fixed sleep.
import { acceptsConnections } from './ports.js';

const POLL_MS = 20;

/**
 * Polls `check` until it returns a value other than undefined and false, and returns that value;
 * throws naming `what` (and the last value seen, when `describe` is given) after `timeoutMs`.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** `p` itself, or a failure naming `what` when it has not settled within `timeoutMs` (a deadline on an event). */
export async function settlesWithin<T>(what: string, p: Promise<T>, timeoutMs: number): Promise<T> {
  let done = false;
  const tracked = p.finally(() => (done = true));
  tracked.catch(() => undefined); // reported below, by the await
  await waitFor(what, () => done, timeoutMs);
  return tracked;
}

/** Resolves once 127.0.0.1:port refuses connections (a server's close() has closed its listener). */
export function waitForPortClosed(port: number, timeoutMs = 10_000): Promise<true> {
  return waitFor(`port ${port} to refuse connections`, async () => !(await acceptsConnections(port)), timeoutMs);
}

/** A promise and the function that resolves it: a step a fake handler holds until the test lets it go. */
export function gate<T = void>(): { opened: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const opened = new Promise<T>((r) => (open = r));
  return { opened, open };
}

/** Whether `p` has settled by the next turn of the event loop (it is not awaited further). */
export async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
}
