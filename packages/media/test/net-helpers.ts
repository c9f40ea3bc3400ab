// Test doubles for the net layer: a fake DNS resolver (tests never query real DNS) and a probe for
// whether ::1 can be bound here.
import { createServer } from 'node:net';
import type { Resolver } from '../src/net/index.js';

export type FakeAnswer = string[] | ((call: number) => string[]);

export interface FakeResolver extends Resolver {
  /** Host names asked for, in order. */
  readonly calls: string[];
}

/**
 * Maps names (trailing dot ignored) to addresses; a function answer gets the 1-based call count
 * for that name (to fake DNS rebinding). Unknown names fail like getaddrinfo's ENOTFOUND.
 */
export function fakeResolver(table: Record<string, FakeAnswer>): FakeResolver {
  const calls: string[] = [];
  const perName = new Map<string, number>();
  const resolve = async (hostname: string): Promise<string[]> => {
    calls.push(hostname);
    const name = hostname.replace(/\.$/, '');
    const n = (perName.get(name) ?? 0) + 1;
    perName.set(name, n);
    const answer = table[name];
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof answer === 'function' ? answer(n) : answer;
  };
  return Object.assign(resolve, { calls });
}

/** True when a listener can bind ::1 (IPv6 loopback may be disabled in containers). */
export function canListen(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(0, host, () => server.close(() => resolve(true)));
  });
}

/** The rejection of `promise`, failing the test when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error & { status?: number; kind?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { status?: number; kind?: string };
  }
  throw new Error('expected a rejection, got a result');
}
