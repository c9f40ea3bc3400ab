import { loadConfig } from '@media/platform';
import type { TestStack } from '@media/stack/testing';
import { gatewayConfigSpec } from '../src/index.js';

export type Method = 'GET' | 'POST' | 'DELETE' | 'PUT';

/** A caller with one account's key, speaking to the gateway through inject(). */
export function caller(stack: TestStack, authorization: string) {
  return async (method: Method, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await stack.gateway.app.inject({
      method,
      url,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
  };
}

/** A 1x1 PNG: enough for type sniffing. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until `ready()` holds or `withinMs` passes. For what a test hears as bus events (charges):
 * NATS delivers an event moments after the answer of the call that published it.
 */
export async function until(ready: () => boolean, withinMs = 2000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!ready() && Date.now() < deadline) await sleep(10);
}

/**
 * Repeats `request` until it answers `status` or `withinMs` passes, and returns the last answer.
 * For effects that travel as bus events: NATS delivers an event moments after the call that
 * published it has returned.
 */
export async function answersWithin<T extends { statusCode: number }>(
  request: () => Promise<T>,
  status: number,
  withinMs: number,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const res = await request();
    if (res.statusCode === status || Date.now() >= deadline) return res;
    await sleep(10);
  }
}

/** The configuration of another gateway replica in front of the stack's five services. */
export function replicaConfig(stack: TestStack, env: Record<string, string> = {}) {
  return loadConfig(gatewayConfigSpec, {
    LOG_LEVEL: 'silent',
    INTERNAL_TOKEN: stack.internalToken('gateway'),
    AUTH_URL: stack.urls.auth,
    STORAGE_URL: stack.urls.storage,
    JOBS_URL: stack.urls.jobs,
    PROBE_URL: stack.urls.probe,
    BILLING_URL: stack.urls.billing,
    ...env,
  });
}
