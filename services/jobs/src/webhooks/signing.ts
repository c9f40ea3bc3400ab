// Webhook signatures: HMAC-SHA256 with the account's secret over "<timestamp>.<raw body>". The
// timestamp is signed too so a captured delivery cannot be replayed later with a fresh timestamp.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_VERSION = 'v1';
/** Receivers should refuse deliveries whose timestamp is further than this from their clock. */
export const SIGNATURE_TOLERANCE_SEC = 300;
export const WEBHOOK_USER_AGENT = 'media-service-webhook/1';

/** Hex HMAC-SHA256 of "<timestamp>.<body>"; the key is the whole secret string (whsec_...) as UTF-8. */
export function computeSignature(secret: string, timestampSec: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestampSec}.${body}`, 'utf8').digest('hex');
}

/** The headers of one attempt (a fresh timestamp and signature each time). */
export function signedHeaders(opts: {
  secret: string;
  jobId: string;
  attempt: number;
  timestampSec: number;
  body: string;
}): Record<string, string> {
  return {
    'webhook-id': opts.jobId,
    'webhook-timestamp': String(opts.timestampSec),
    'webhook-signature': `${SIGNATURE_VERSION}=${computeSignature(opts.secret, opts.timestampSec, opts.body)}`,
    'webhook-attempt': String(opts.attempt),
    'user-agent': WEBHOOK_USER_AGENT,
  };
}

/**
 * Receiver-side check, as documented in docs/api/webhooks.md: the timestamp is recent and one `v1=`
 * signature matches. Exported for tools and tests; the service itself only signs.
 */
export function verifySignature(opts: {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  body: string;
  nowSec?: number;
  toleranceSec?: number;
}): boolean {
  const ts = Number(opts.timestamp);
  if (!opts.timestamp || !/^\d+$/.test(opts.timestamp) || !Number.isSafeInteger(ts)) return false;
  const now = opts.nowSec ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - ts) > (opts.toleranceSec ?? SIGNATURE_TOLERANCE_SEC)) return false;
  const expected = Buffer.from(computeSignature(opts.secret, ts, opts.body), 'hex');
  return (opts.signature ?? '')
    .split(/[\s,]+/)
    .filter((part) => part.startsWith(`${SIGNATURE_VERSION}=`))
    .some((part) => {
      const given = Buffer.from(part.slice(SIGNATURE_VERSION.length + 1), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
