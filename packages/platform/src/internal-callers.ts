// Every internal RPC names its caller: the client sends its identity and its token, the server
// compares the token's SHA-256 in constant time with the hash it holds for that identity, then
// asks the access table (internal-access.ts) whether that identity may call the method. A server
// holds only hashes, so a service that leaks its settings cannot impersonate its callers.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { ConfigError } from './config.js';
import { Errors, toConnectError } from './errors.js';
import { allowedCallers, CALLER_IDENTITIES, parseInternalCallers, type CallerIdentity } from './internal-access.js';
import { mapStreamErrors } from './call-stream.js';
import type { Logger } from './logger.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest();

export const CALLER_HEADER = 'x-media-caller';
export const CALLER_TOKEN_HEADER = 'x-media-caller-token';
/** Set on a refusal: the calling side's bug or misconfiguration, answered to users as a 500. */
export const CALLER_REFUSED_HEADER = 'x-media-caller-refused';

/** Credentials for every identity: npm start makes them at each start and passes them in-process. */
export interface InternalCredentials {
  tokens: Record<CallerIdentity, string>;
  /** INTERNAL_CALLERS for every service. */
  callers: string;
}

export function generateInternalCredentials(): InternalCredentials {
  const tokens = Object.fromEntries(CALLER_IDENTITIES.map((id) => [id, randomBytes(32).toString('hex')])) as Record<CallerIdentity, string>;
  return { tokens, callers: internalCallersFor(tokens) };
}

/** INTERNAL_CALLERS for these tokens. */
export function internalCallersFor(tokens: Partial<Record<CallerIdentity, string>>): string {
  return Object.entries(tokens)
    .map(([id, token]) => `${id}:${sha256(token!).toString('hex')}`)
    .join(',');
}

function refused(err: Parameters<typeof toConnectError>[0]): ConnectError {
  const c = toConnectError(err);
  return new ConnectError(c.rawMessage, c.code, new Headers({ [CALLER_REFUSED_HEADER]: '1' }));
}

/** Server side: refuse a call (health checks aside) without a valid credential, or from an identity the table does not list. */
export function internalCallerServerInterceptor(callers: Map<CallerIdentity, Buffer>, logger: Logger): Interceptor {
  // Compared with when the identity is unknown, so that case takes the same time.
  const nobody = sha256(randomBytes(32).toString('hex'));
  return (next) => async (req) => {
    if (req.service.typeName === 'grpc.health.v1.Health') return next(req);
    const method = `${req.service.typeName}/${req.method.name}`;
    // Logged as sent, so cut short: any process may put anything in it.
    const claimed = (req.header.get(CALLER_HEADER) ?? '').slice(0, 64);
    const expected = callers.get(claimed as CallerIdentity);
    const matches = timingSafeEqual(sha256(req.header.get(CALLER_TOKEN_HEADER) ?? ''), expected ?? nobody);
    if (!matches || !expected) {
      logger.warn({ caller: claimed || undefined, rpc: method }, 'internal call refused: no valid caller credential');
      throw refused(Errors.callerUnknown(method));
    }
    if (!allowedCallers(req.service.typeName, req.method.name).includes(claimed as CallerIdentity)) {
      logger.warn({ caller: claimed, rpc: method }, 'internal call refused: the caller may not call this method');
      throw refused(Errors.callerNotAllowed(claimed, method));
    }
    return next(req);
  };
}

/**
 * A refusal seen by the caller becomes an internal error at once: relayed (the gateway -> Jobs ->
 * Storage), its Unauthenticated or PermissionDenied would otherwise read as the API key's fault.
 */
const refusalAsInternal: Interceptor = (next) => async (req) => {
  const map = (err: unknown) =>
    err instanceof ConnectError && err.metadata.has(CALLER_REFUSED_HEADER)
      ? new ConnectError(Errors.internal().message, Code.Internal, new Headers({ [CALLER_REFUSED_HEADER]: '1' }), undefined, err)
      : err;
  try {
    return mapStreamErrors(await next(req), map);
  } catch (err) {
    throw map(err);
  }
};

/** Client side: name this process and send its token on every call (no credential without a token). */
export function internalCallerInterceptors(identity: CallerIdentity, token: string | undefined): Interceptor[] {
  if (!token) return [refusalAsInternal];
  return [
    refusalAsInternal,
    (next) => async (req) => {
      req.header.set(CALLER_HEADER, identity);
      req.header.set(CALLER_TOKEN_HEADER, token);
      return next(req);
    },
  ];
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/i;

/**
 * The check a service's listener makes, decided before anything opens. Without INTERNAL_CALLERS a
 * service on a loopback address (a developer running it alone) is open to local processes, and
 * says so; on any other address it refuses to start, since any pod or host that reaches the port
 * would be every tenant.
 */
export function internalCallerCheck(
  name: string,
  config: { INTERNAL_CALLERS?: string | undefined; SERVICE_HOST: string },
): (logger: Logger) => Interceptor[] {
  if (config.INTERNAL_CALLERS) {
    const callers = parseInternalCallers(config.INTERNAL_CALLERS);
    return (logger) => [internalCallerServerInterceptor(callers, logger)];
  }
  if (!LOOPBACK.test(config.SERVICE_HOST))
    throw new ConfigError([
      `INTERNAL_CALLERS is required when SERVICE_HOST (${config.SERVICE_HOST}) is not a loopback address: ` +
        `list the hashes of the callers' INTERNAL_TOKENs (see docs/operations/internal-calls.md)`,
    ]);
  return (logger) => {
    logger.warn({}, `${name}: INTERNAL_CALLERS is unset: its RPCs are open to every process on this host (set it to name the callers)`);
    return [];
  };
}
