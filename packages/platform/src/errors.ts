// THE error table: domain error -> Connect code -> HTTP status, with the spec's texts.
// Services throw DomainErrors; the server interceptor turns them into ConnectErrors; the gateway
// turns ConnectErrors back into `{ok:false, error}` with the status from this same table.
import { Code, ConnectError } from '@connectrpc/connect';
import { metrics } from './metrics.js';
import { PARALLEL_JOBS_PER_ACCOUNT, RATE_LIMIT_PER_MINUTE } from './spec-rules.js';

export type ErrorKind =
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'state_conflict'
  | 'gone'
  | 'rate_limited'
  | 'internal'
  | 'not_implemented'
  | 'unavailable';

/** code null: answered by the gateway itself, never crosses an RPC. */
export const ERROR_KINDS: Record<ErrorKind, { code: Code | null; status: number }> = {
  bad_request: { code: Code.InvalidArgument, status: 400 },
  unauthenticated: { code: Code.Unauthenticated, status: 401 },
  forbidden: { code: Code.PermissionDenied, status: 403 },
  not_found: { code: Code.NotFound, status: 404 },
  conflict: { code: Code.AlreadyExists, status: 409 },
  state_conflict: { code: Code.FailedPrecondition, status: 409 },
  gone: { code: null, status: 410 },
  rate_limited: { code: Code.ResourceExhausted, status: 429 },
  internal: { code: Code.Internal, status: 500 },
  not_implemented: { code: Code.Unimplemented, status: 501 },
  unavailable: { code: Code.Unavailable, status: 503 },
};

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Seconds for the Retry-After header (429, 503). */
    readonly retryAfterSec?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
  get status(): number {
    return ERROR_KINDS[this.kind].status;
  }
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(2);
const wholeMb = (bytes: number) => Math.floor(bytes / 1e6).toLocaleString('en-US');

/** Every error text the service answers with. Spec texts are verbatim. */
/** Counts a 429 decision; returns undefined so the error is made after it. */
/** Counts a 429 decision (media_rate_limited_total) and returns its error. */
function counted(limit: 'key_rate' | 'jobs_in_progress' | 'connections', err: DomainError): DomainError {
  metrics.rateLimited.inc({ limit });
  return err;
}

/** Where the spec's sentences for an account that is not active send its owner. */
export interface AccountNoticeLinks {
  consoleUrl: string;
  supportContact: string;
}

/**
 * The spec's refusal (authentication table, 403) of an account whose status is `status` (Auth's
 * names): no card, a failed payment or suspended; undefined for any other status (active, and
 * closed, which each caller answers in its own way). Auth answers API keys with it, Storage the
 * signed upload URLs.
 */
export function accountNotActive(status: string, links: AccountNoticeLinks): DomainError | undefined {
  if (status === 'no_card') return Errors.noCard(links.consoleUrl);
  if (status === 'payment_failed') return Errors.paymentFailed(links.consoleUrl);
  if (status === 'suspended') return Errors.suspended(links.supportContact);
  return undefined;
}

export const Errors = {
  // Request shape (gateway).
  bodyRequired: () => new DomainError('bad_request', 'Request body is required'),
  invalidJson: () => new DomainError('bad_request', 'Invalid JSON in request body'),
  bodyTooLarge: () => new DomainError('bad_request', 'Request body is larger than 256 KB'),
  invalidRequest: (sentence: string) => new DomainError('bad_request', sentence),
  routeNotFound: (method: string, path: string) => new DomainError('not_found', `No endpoint ${method} ${path}`),
  badUrlEncoding: () => new DomainError('bad_request', 'The URL path is not valid: each % must be followed by two hexadecimal digits.'),
  pathSegmentTooLong: (max: number) => new DomainError('bad_request', `A segment of the URL path is longer than ${max} characters.`),
  retired: () => new DomainError('gone', 'POST /ffmpeg/run is retired. Use POST /ffmpeg/process.'),
  notOffered: () => new DomainError('not_implemented', 'The /ai endpoints are not offered.'),
  // Authentication table.
  authHeaderRequired: () => new DomainError('unauthenticated', 'Authorization Header Required'),
  invalidApiKey: () => new DomainError('unauthenticated', 'Invalid API key'),
  noCard: (consoleUrl: string) => new DomainError('forbidden', `Add a card at ${consoleUrl} to start using the API.`),
  paymentFailed: (consoleUrl: string) => new DomainError('forbidden', `A payment failed. Pay the open invoice at ${consoleUrl} to resume.`),
  suspended: (supportContact: string) => new DomainError('forbidden', `This account is suspended. Contact ${supportContact}.`),
  // The web console's sign-in (not the API's: its pages show these sentences).
  loginLinkInvalid: () =>
    new DomainError(
      'unauthenticated',
      'This sign-in link is not valid: it was used already or is older than 15 minutes. Ask for a new one.',
    ),
  signInKeyInvalid: () => new DomainError('unauthenticated', 'That API key is not valid: it is unknown, revoked or expired.'),
  signInAccountClosed: () => new DomainError('unauthenticated', 'This account is closed.'),
  adminTokenRequired: () =>
    new DomainError('unauthenticated', "This listener needs Auth's admin token: set AUTH_ADMIN_TOKEN to the value the Auth service has."),
  // Internal calls (internal-callers.ts): an operator's misconfiguration, never a client's answer.
  callerUnknown: (method: string) =>
    new DomainError(
      'unauthenticated',
      `${method} needs the calling service's credential: give the caller its INTERNAL_TOKEN and this service the matching INTERNAL_CALLERS entry.`,
    ),
  callerNotAllowed: (caller: string, method: string) =>
    new DomainError(
      'forbidden',
      `The ${caller} service may not call ${method}: only the services listed for it in packages/platform/src/internal-access.ts may.`,
    ),
  consoleSessionEnded: () => new DomainError('unauthenticated', 'Your console session ended. Sign in again.'),
  consoleFormRefused: () =>
    new DomainError(
      'forbidden',
      'This form was not sent from a console page of your session (its origin or security token is wrong), so nothing was changed. Reload the page and try again.',
    ),
  consoleCookiesShadowed: () =>
    new DomainError(
      'forbidden',
      "Your browser sent the console's cookies twice (a page on another port or path of this host set a copy), so nothing was changed and you were signed out. Sign in again.",
    ),
  // The spec's texts name its limits (spec-rules.ts); an operator who sets other limits gets them named.
  rateLimited: (retryAfterSec: number, perMinute = RATE_LIMIT_PER_MINUTE) =>
    counted(
      'key_rate',
      new DomainError('rate_limited', `Rate limit exceeded: ${perMinute} requests a minute per key. Retry shortly.`, retryAfterSec),
    ),
  // Files and directories.
  directoryNotFound: () => new DomainError('not_found', 'Directory not found'),
  fileNotFound: () => new DomainError('not_found', 'File not found in directory'),
  fileExists: () => new DomainError('conflict', 'File name already exists in directory'),
  fileTooLarge: (name: string, bytes: number) =>
    new DomainError('forbidden', `File '${name}' size (${mb(bytes)} MB) exceeds max file size limit of 5 GB.`),
  // Tasks and jobs.
  taskRequired: () => new DomainError('bad_request', 'Task object is required in request body'),
  invalidFilePath: () => new DomainError('bad_request', 'Invalid file_path format. Expected <dir_id>/<file_name>'),
  inputsSameDirectory: () => new DomainError('bad_request', 'All input files must be from the same directory'),
  outputConflicts: (name: string) => new DomainError('bad_request', `Output filename '${name}' conflicts with an existing input file`),
  inputsNotArray: () => new DomainError('bad_request', 'Invalid task format: inputs must be a non-empty array'),
  jobNotFound: () => new DomainError('not_found', 'Job not found'),
  cannotCancel: (status: string) =>
    new DomainError('state_conflict', `Cannot cancel job in '${status}' status. Only pending jobs can be cancelled.`),
  tooManyJobs: (retryAfterSec: number, limit = PARALLEL_JOBS_PER_ACCOUNT) =>
    counted(
      'jobs_in_progress',
      new DomainError('rate_limited', `Too many jobs in progress: at most ${limit} per account. Retry when one finishes.`, retryAfterSec),
    ),
  ffmpegFailed: (exitCode: number, detail: string) =>
    new DomainError('internal', `FFmpeg command failed with exit code ${exitCode}: ${detail}`),
  timedOut: () => new DomainError('internal', 'Processing timed out'),
  // Bounds during a run (docs/sandbox.md): the run is stopped, its files removed, nothing charged.
  diskShareExceeded: (shareBytes: number) =>
    new DomainError(
      'internal',
      `The task's outputs would take more than ${wholeMb(shareBytes)} MB, the disk space one run may use now (the service keeps a reserve free on its disk); the run was stopped and nothing was charged. Write smaller outputs (a lower resolution or bitrate, a shorter -t, fewer outputs) or split the task.`,
    ),
  memoryLimitExceeded: (limitBytes: number) =>
    new DomainError(
      'internal',
      `FFmpeg used more than ${Math.floor(limitBytes / 1024 ** 2).toLocaleString('en-US')} MiB of memory, the limit of one run; the run was stopped and nothing was charged. Use smaller frames (scale down first), fewer threads (-threads 1), filters that keep fewer frames (reverse and loop hold every frame they see), or split the task.`,
    ),
  /** The run's output media time advanced under the speed floor (FFMPEG_MIN_SPEED over FFMPEG_SPEED_WINDOW_SEC). */
  // 500, like the time limit it comes before (the spec's 400s are all judged before a run).
  processingTooSlow: (advancedSec: number, windowSec: number, minSpeed: number) =>
    new DomainError(
      'internal',
      `Processing stopped early: the output's media time advanced ${Number(advancedSec.toFixed(3))} s in the last ${windowSec} s, under the minimum of ${minSpeed}x real time a run must keep so that it does not hold a worker slot without headway. Make the task faster (read inputs at full speed or with -re, do not stretch timestamps with setpts or paced filters) or split it into shorter tasks; nothing was charged.`,
    ),
  // JOB_STAGING_TIMEOUT_SEC: fetching and checking the inputs has its own deadline, not the job's hour.
  stagingTimedOut: (limitSec: number) =>
    new DomainError(
      'bad_request',
      `The task's inputs took longer than ${limitSec % 60 === 0 ? `${limitSec / 60} minutes` : `${limitSec} seconds`} to fetch and check: serve URL inputs faster, or upload them first (POST /file) and use their file_path; nothing was charged.`,
    ),
  tooBusy: (retryAfterSec: number) =>
    new DomainError('unavailable', 'Too busy to start the job now. Retry, or use the async endpoint, which queues it.', retryAfterSec),
  // Idempotency-Key (docs/api/conventions.md).
  idempotencyKeyInvalid: (max: number) =>
    new DomainError(
      'bad_request',
      `Idempotency-Key must be 1 to ${max} visible ASCII characters (letters, digits, punctuation; no spaces), e.g. a UUID, sent in one header.`,
    ),
  idempotencyKeyReused: () =>
    new DomainError(
      'conflict',
      'This Idempotency-Key was already used with a different request (method, path or body) in the last 24 hours. Use a new key for a new request.',
    ),
  idempotencyInProgress: () =>
    new DomainError(
      'state_conflict',
      'A request with this Idempotency-Key is still being answered. Retry when it has finished to get its answer.',
    ),
  // Connections (the gateway and the signed-URL listener).
  tooManyConnectionsFromAddress: (limit: number) =>
    counted(
      'connections',
      new DomainError(
        'rate_limited',
        `Too many connections from your address: at most ${limit} at once. Close idle connections and retry.`,
        1,
      ),
    ),
  tooManyConnections: () => new DomainError('unavailable', 'The service has too many open connections. Retry shortly.', 1),
  // Uploads through Storage on S3 (S3_UPLOADS=storage): each one in progress holds temp space and memory.
  tooManyUploadsFromAddress: (limit: number, retryAfterSec = 5) =>
    new DomainError(
      'unavailable',
      `Too many uploads from your address in progress: at most ${limit} at once. Retry when one of them has finished.`,
      retryAfterSec,
    ),
  tooManyUploads: (retryAfterSec = 5) =>
    new DomainError('unavailable', 'The service has too many uploads in progress. Retry shortly.', retryAfterSec),
  // Faults.
  internal: () => new DomainError('internal', 'Internal error. Retry the request.'),
  dependencyDown: (retryAfterSec = 5) => new DomainError('unavailable', 'A backing service is unavailable. Retry shortly.', retryAfterSec),
  diskFull: (retryAfterSec = 30) =>
    new DomainError('unavailable', 'The service is low on storage space. Retry later, or delete files you no longer need.', retryAfterSec),
};

const RETRY_AFTER = 'retry-after';

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/** True when `err` (or its cause chain) says the disk or the quota is full: the service's fault. */
export function isNoSpace(err: unknown): boolean {
  // Duck-typed: errors from Node internals may come from another realm (e.g. under jest).
  for (
    let e: unknown = err, depth = 0;
    typeof e === 'object' && e !== null && depth < 5;
    e = (e as { cause?: unknown }).cause, depth += 1
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NO_SPACE.has(code)) return true;
  }
  return false;
}

/**
 * For RPC handlers: DomainError -> ConnectError; ConnectErrors pass through; a full disk (a
 * store's write, say) is Errors.diskFull(); anything else is internal.
 */
export function toConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  if (!(err instanceof DomainError) && isNoSpace(err)) return toConnectError(Errors.diskFull());
  if (err instanceof DomainError) {
    const code = ERROR_KINDS[err.kind].code ?? Code.Internal;
    const metadata = new Headers();
    if (err.retryAfterSec !== undefined) metadata.set(RETRY_AFTER, String(err.retryAfterSec));
    return new ConnectError(err.message, code, metadata);
  }
  return new ConnectError(Errors.internal().message, Code.Internal, undefined, undefined, err);
}

const NETWORK_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_STREAM_CANCEL',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_INVALID_SESSION',
]);

/**
 * True when the call never got a domain answer: the peer is down or unreachable, the circuit is
 * open, or the deadline passed. (Also recognises raw socket errors wrapped as INTERNAL, which
 * happens when the error object comes from another realm, e.g. under jest.)
 */
export function isTransportFailure(err: unknown): boolean {
  if (!(err instanceof ConnectError)) return true;
  if (err.code === Code.Unavailable || err.code === Code.DeadlineExceeded) return !err.metadata.has(RETRY_AFTER);
  const cause = err.cause as { code?: unknown } | undefined;
  return typeof cause?.code === 'string' && NETWORK_ERRNOS.has(cause.code);
}

/**
 * True for a failure that says nothing about the request itself: a dependency (MongoDB, NATS, S3,
 * another service) down or unreachable. Work that must not be lost (async jobs) waits and tries
 * again rather than failing on it.
 */
export function isRetryableFault(err: unknown): boolean {
  if (err instanceof DomainError) return err.kind === 'unavailable';
  if (err instanceof ConnectError) return err.code === Code.Unavailable || err.code === Code.DeadlineExceeded || isTransportFailure(err);
  return false;
}

const STATUS_BY_CODE = new Map<Code, number>(
  Object.values(ERROR_KINDS).flatMap((k) => (k.code === null ? [] : [[k.code, k.status] as const])),
);

/** For the gateway: any error -> HTTP status, spec text and Retry-After. */
export function toHttpError(err: unknown): { status: number; message: string; retryAfterSec?: number; internal: boolean } {
  if (err instanceof DomainError) {
    return { status: err.status, message: err.message, retryAfterSec: err.retryAfterSec, internal: false };
  }
  // Another service refused this process's credential: the deployment's fault, not the client's.
  if (err instanceof ConnectError && err.metadata.has('x-media-caller-refused')) {
    const fault = Errors.internal();
    return { status: fault.status, message: fault.message, internal: true };
  }
  if (err instanceof ConnectError) {
    const retry = err.metadata.get(RETRY_AFTER);
    const status = STATUS_BY_CODE.get(err.code);
    // A transport failure (peer down, breaker open, deadline) is not a domain answer: 503.
    if (isTransportFailure(err)) {
      const down = Errors.dependencyDown();
      return { status: down.status, message: down.message, retryAfterSec: down.retryAfterSec, internal: true };
    }
    if (status !== undefined && err.code !== Code.Internal && err.code !== Code.Unknown) {
      return { status, message: err.rawMessage, retryAfterSec: retry ? Number(retry) : undefined, internal: false };
    }
    // Internal: only texts a service chose to expose (DomainError 'internal') travel as-is.
    if (err.code === Code.Internal && err.rawMessage && err.rawMessage !== '') {
      return { status: 500, message: err.rawMessage, internal: false };
    }
  }
  const fault = Errors.internal();
  return { status: fault.status, message: fault.message, internal: true };
}
