// JSON-schema pieces shared by the routes.

export const nullable = <T extends string>(type: T) => ({ type: [type, 'null'] }) as const;

export const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

/** An object whose properties are all required (most of the API's objects). */
export const allRequired = <const P extends Record<string, unknown>>(properties: P) =>
  ({ type: 'object', required: Object.keys(properties) as (keyof P & string)[], properties }) as const;

/** A success body: `ok` and the given fields, all required, with what it says. */
export const okResponse = <const P extends Record<string, unknown>>(description: string, properties: P) =>
  ({ description, ...allRequired({ ok: { type: 'boolean' }, ...properties } as { ok: { readonly type: 'boolean' } } & P) }) as const;

/** The path parameters `names`, all strings. */
export const stringParams = <const N extends readonly string[]>(...names: N) =>
  allRequired(Object.fromEntries(names.map((n) => [n, { type: 'string' }])) as { [K in N[number]]: { readonly type: 'string' } });

/** The spec's Usage object, as every charged response carries it. */
export const usageSchema = allRequired({
  time_sec: { type: 'number' },
  input_size_gb: { type: 'number' },
  output_size_gb: { type: 'number' },
  gb_sec: { type: 'number' },
});

/** A result item (output file). */
export const resultItemSchema = allRequired({
  file_name: { type: 'string' },
  size_bytes: { type: 'integer' },
  download_url: { type: 'string' },
});

/** A charged request's answer: its result, the usage charged, its request id and the amount. */
export const chargedResponse = <const R>(description: string, result: R) =>
  okResponse(description, { result, usage: usageSchema, request_id: { type: 'string' }, amount_usd: { type: 'number' } });

/** The spec's error shape, every status's body. */
export const errorSchema = allRequired({
  ok: { type: 'boolean', description: 'Always false on an error.' },
  error: { type: 'string', description: 'A sentence: what is wrong and how to fix it. Match on the status, not the text.' },
});

/** What each error status means (the spec's Errors table), as the OpenAPI document says it. */
const ERROR_MEANINGS = {
  400: 'Malformed JSON, a missing or invalid field, a refused option or filter, a URL that is not public HTTPS, or a body over 256 KB.',
  401: 'Authorization header missing, or the key is invalid, revoked or expired.',
  403: 'The account is not active (no card, a failed payment, suspended), or a file over 5 GB.',
  404: 'The directory, file or job is not in the account, or has expired.',
  409: 'Conflict: see the sentence.',
  410: 'Retired.',
  429: 'Over the request rate of the key, or too many jobs in progress: wait the Retry-After seconds and resend.',
  500: 'FFmpeg or ffprobe failed, the job timed out, or an internal fault; the sentence says which.',
  501: 'Not offered.',
  503: 'Too busy, low on storage or a dependency is unavailable: wait the Retry-After seconds and resend.',
} as const;

export type ErrorStatus = keyof typeof ERROR_MEANINGS;

/** Response schemas for error statuses, each with the spec's meaning (or `meanings`' own). */
export function errorResponses(statuses: readonly ErrorStatus[], meanings: Partial<Record<ErrorStatus, string>> = {}) {
  return Object.fromEntries(statuses.map((s) => [s, { description: meanings[s] ?? ERROR_MEANINGS[s], ...errorSchema }])) as Record<
    ErrorStatus,
    typeof errorSchema & { description: string }
  >;
}

/** The errors any authenticated endpoint can answer (bad query, key, account, rate, faults). */
export const authedErrors = (...more: ErrorStatus[]) => errorResponses([400, 401, 403, ...more, 429, 500, 503]);
