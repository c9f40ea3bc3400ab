// One delivery attempt: fetch the account's secret, sign, POST, and turn what happened into an
// outcome. Nothing here touches the store; the worker records the outcome.
import { NetTransportError, postJson, type CidrList, type Resolver } from '@media/media';
import { DomainError } from '@media/platform';
import type { Claim, Outcome } from './repository.js';
import { nextDelay } from './schedule.js';
import type { SecretCache } from './secrets.js';
import { signedHeaders } from './signing.js';

export interface AttemptContext {
  secrets: SecretCache;
  allowlist: CidrList;
  ca?: string;
  resolver?: Resolver;
  scheduleMs: readonly number[];
  attemptTimeoutMs: number;
  now: () => number;
}

export async function runAttempt(ctx: AttemptContext, claim: Claim): Promise<Outcome> {
  const { doc, attempt } = claim;
  const again = (status: number | null, error: string): Outcome => {
    const delay = nextDelay(ctx.scheduleMs, attempt);
    return delay === null ? { kind: 'failed', status, error } : { kind: 'retry', at: new Date(ctx.now() + delay), status, error };
  };

  let payload: unknown;
  try {
    payload = JSON.parse(doc.body);
  } catch {
    return { kind: 'failed', status: null, error: 'stored webhook body is not valid JSON' };
  }
  // postJson serializes the value itself; JSON.stringify(JSON.parse(s)) gives back s for text that
  // JSON.stringify made, so this is both the stored bytes and exactly what is sent and signed.
  const body = JSON.stringify(payload);

  let secrets: string[];
  try {
    secrets = await withTimeout(ctx.secrets.get(doc.accountId), ctx.attemptTimeoutMs, 'timed out');
  } catch (err) {
    // Counts as an attempt (nothing was sent): keeps the total bounded if Auth stays unreachable.
    return again(null, `signing secret unavailable: ${errorText(err)}`);
  }

  const headers = signedHeaders({ secrets, jobId: doc._id, attempt, timestampSec: Math.floor(ctx.now() / 1000), body });
  try {
    const { status } = await postJson(doc.url, payload, {
      allowlist: ctx.allowlist,
      ...(ctx.ca !== undefined ? { ca: ctx.ca } : {}),
      ...(ctx.resolver !== undefined ? { resolver: ctx.resolver } : {}),
      timeoutMs: ctx.attemptTimeoutMs,
      headers,
    });
    if (status >= 200 && status < 300) return { kind: 'delivered', status };
    // 3xx included: redirects are not followed, so a moved receiver is a failed attempt.
    return again(status, `receiver answered ${status}`);
  } catch (err) {
    // Refused before connecting (the target is, or now resolves to, a non-public address): retrying
    // would only be refused again.
    if (err instanceof DomainError) return { kind: 'failed', status: null, error: err.message };
    // Body over postJson's limit: no attempt can succeed.
    if (err instanceof RangeError) return { kind: 'failed', status: null, error: err.message };
    return again(null, err instanceof NetTransportError ? err.message : `unexpected error: ${errorText(err)}`);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
