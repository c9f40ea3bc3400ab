// Which MongoDB driver errors mean "the database cannot be reached" rather than an answer
// (duplicate key, validation...): what the breaker counts.
import { types } from 'node:util';
import { MongoNetworkError, MongoOperationTimeoutError, MongoServerError, MongoServerSelectionError } from 'mongodb';

/** Server answers of a node shutting down or losing its primary role: a failover, not a bad request. */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * Socket errors the driver (mongodb 6.22) passes on unwrapped: a command written to a connection
 * the server has just closed fails with Node's own EPIPE ("This socket has been ended by the other
 * party"), not a MongoNetworkError. Seen when the server process restarts.
 */
const SOCKET_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * True when MongoDB could not be reached or is failing over: no server selected in time, a
 * dropped or timed-out connection, a node shutting down. Duplicate keys, validation errors and
 * the store's own errors are answers, not outages.
 */
export function isMongoOutage(err: unknown): boolean {
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError || err instanceof MongoOperationTimeoutError)
    return true;
  if (err instanceof MongoServerError) return typeof err.code === 'number' && UNAVAILABLE_CODES.has(err.code);
  const code = (err as { code?: unknown } | null)?.code;
  return types.isNativeError(err) && typeof code === 'string' && SOCKET_CODES.has(code);
}
