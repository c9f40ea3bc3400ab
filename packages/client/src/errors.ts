// What a failed call throws: the API's status and sentence, and the request id to quote.

export class MediaApiError extends Error {
  override readonly name = 'MediaApiError';
  constructor(
    /** The HTTP status (0 when no answer arrived). */
    readonly status: number,
    /** The API's sentence (`error` of `{ok:false, error}`), or what went wrong on the way. */
    readonly error: string,
    /** X-Request-Id of the answer, when there was one. */
    readonly requestId?: string,
    /** Seconds the API asked to wait (429, 503). */
    readonly retryAfterSec?: number,
  ) {
    super(requestId ? `${status}: ${error} (request ${requestId})` : status ? `${status}: ${error}` : error);
  }

  /** The error classes a caller (or the CLI's exit code) tells apart. */
  get kind(): 'network' | 'auth' | 'not_found' | 'conflict' | 'invalid' | 'busy' | 'server' {
    if (this.status === 0) return 'network';
    if (this.status === 401 || this.status === 403) return 'auth';
    if (this.status === 404) return 'not_found';
    if (this.status === 409) return 'conflict';
    if (this.status === 429 || this.status === 503) return 'busy';
    if (this.status >= 500) return 'server';
    return 'invalid';
  }
}

/** The error an answer carries, read without assuming its body is the API's shape. */
export async function errorFrom(res: Response): Promise<MediaApiError> {
  const text = await res.text().catch(() => '');
  let sentence = text || res.statusText;
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') sentence = body.error;
  } catch {
    // not JSON: the text as it is
  }
  return new MediaApiError(res.status, sentence, res.headers.get('x-request-id') ?? undefined, retryAfter(res));
}

export function retryAfter(res: Response): number | undefined {
  const raw = res.headers.get('retry-after');
  if (raw === null) return undefined;
  const sec = Number(raw);
  if (Number.isFinite(sec)) return Math.max(0, sec);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}
