// The opaque page cursor of ListUsage: a keyset position in (completed_at, request_id) order,
// plus a fingerprint of the query it came from. Rows that arrive during a walk complete "now",
// after every row already paged, so a keyset position never skips or repeats a row; an offset
// would.
import { createHash } from 'node:crypto';
import { Errors } from '@media/platform';

export interface UsageQuery {
  accountId: string;
  from: Date;
  /** Exclusive. */
  to: Date;
  keyId?: string;
}

export interface Position {
  completedAt: Date;
  requestId: string;
}

/** Ties the cursor to its query: the same cursor with other filters would page a different list. */
function fingerprint(q: UsageQuery): string {
  const text = [q.accountId, q.from.getTime(), q.to.getTime(), q.keyId ?? ''].join('\n');
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

export function encodeCursor(q: UsageQuery, at: Position): string {
  return Buffer.from(JSON.stringify([1, at.completedAt.getTime(), at.requestId, fingerprint(q)])).toString('base64url');
}

export const CURSOR_INVALID = 'cursor is not valid: pass the next_cursor of the previous page unchanged';
export const CURSOR_OTHER_QUERY =
  'cursor belongs to another query: send the same month, from, to and key_id as the request that returned it';

export function decodeCursor(q: UsageQuery, cursor: string): Position {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]{1,1000}$/.test(cursor)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw Errors.invalidRequest(CURSOR_INVALID);
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw Errors.invalidRequest(CURSOR_INVALID);
  const [version, ms, requestId, print] = parsed as unknown[];
  if (version !== 1 || !Number.isSafeInteger(ms) || typeof requestId !== 'string' || requestId === '' || typeof print !== 'string') {
    throw Errors.invalidRequest(CURSOR_INVALID);
  }
  if (print !== fingerprint(q)) throw Errors.invalidRequest(CURSOR_OTHER_QUERY);
  return { completedAt: new Date(ms as number), requestId };
}
