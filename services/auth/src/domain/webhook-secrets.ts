// Webhook signing secrets: Standard Webhooks' `whsec_<base64>` (the decoded bytes are the HMAC
// key), and rotation with a grace period in which the replaced secret still signs deliveries.
import { randomBytes } from 'node:crypto';
import type { AccountDoc } from './ports.js';

export const DEFAULT_GRACE_SEC = 86_400;
// A week, as payment APIs allow for rolling a signing secret (not the spec's 7-day directory lifetime).
export const MAX_GRACE_SEC = 7 * 86_400;
/** Rotations in a row within their grace periods: the oldest beyond this stop signing first. */
const MAX_PREVIOUS = 3;

/** 32 random bytes, as Standard Webhooks' libraries generate them. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

type Previous = NonNullable<AccountDoc['previousWebhookSecrets']>;

/** The replaced secrets still in their grace period at `now`, newest first. */
export function previousInGrace(account: AccountDoc, now: Date): Previous {
  return (account.previousWebhookSecrets ?? []).filter((p) => p.until.getTime() > now.getTime());
}

/** The grace period a rotation asked for, or why it cannot be. */
export function graceProblem(graceSec: number): string | undefined {
  if (!Number.isInteger(graceSec) || graceSec < 0 || graceSec > MAX_GRACE_SEC)
    return `The grace period must be a whole number of seconds from 0 to ${MAX_GRACE_SEC} (7 days).`;
  return undefined;
}

/**
 * The previous list after replacing the current secret: it keeps signing for `graceSec` beside
 * the new one. A grace of 0 (a leaked secret) ends it and every earlier one at once.
 */
export function afterRotation(account: AccountDoc, graceSec: number, now: Date): Previous {
  if (graceSec === 0) return [];
  const replaced = { secret: account.webhookSecret, until: new Date(now.getTime() + graceSec * 1000) };
  return [replaced, ...previousInGrace(account, now)].slice(0, MAX_PREVIOUS);
}

/** When the last of `previous` stops signing; undefined when none does. */
export function lastValidUntil(previous: Previous): Date | undefined {
  return previous.reduce<Date | undefined>((last, p) => (last && last >= p.until ? last : p.until), undefined);
}
