// Webhook signatures, exactly as Standard Webhooks (standardwebhooks.com) defines them, so that
// receivers verify with its libraries: HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>",
// keyed with the base64-decoded part of the `whsec_` secret, sent base64 as `v1,<signature>`.
// While a rotated secret is in its grace period, every attempt carries one signature per secret
// (space-separated), and a receiver holding either verifies.
import { createHmac } from 'node:crypto';

export const SIGNATURE_VERSION = 'v1';
export const WEBHOOK_USER_AGENT = 'media-service-webhook/1';
const SECRET_PREFIX = 'whsec_';

/** The HMAC key of a `whsec_<base64>` secret: its decoded bytes (the prefix is not part of it). */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0)
    throw new Error('webhook secret is not whsec_ followed by base64');
  return Buffer.from(encoded, 'base64');
}

/** `v1,<base64 HMAC-SHA256>` of "<id>.<timestamp>.<body>". */
export function computeSignature(secret: string, id: string, timestampSec: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSec}.${body}`, 'utf8').digest('base64');
  return `${SIGNATURE_VERSION},${mac}`;
}

/** The headers of one attempt (a fresh timestamp and signatures each time; the same id). */
export function signedHeaders(opts: {
  /** The account's current secret first, then those still in their grace period. */
  secrets: readonly string[];
  jobId: string;
  attempt: number;
  timestampSec: number;
  body: string;
}): Record<string, string> {
  return {
    'webhook-id': opts.jobId,
    'webhook-timestamp': String(opts.timestampSec),
    'webhook-signature': opts.secrets.map((s) => computeSignature(s, opts.jobId, opts.timestampSec, opts.body)).join(' '),
    'webhook-attempt': String(opts.attempt),
    'user-agent': WEBHOOK_USER_AGENT,
  };
}
