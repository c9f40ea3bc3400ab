// Auth's admin listener (keys, sign-in, webhook secrets of any account) when it is reachable from
// other machines, as in the Helm chart where the web console runs in pods of its own: every call
// must carry AUTH_ADMIN_TOKEN. Unset (npm start, where the listener is on 127.0.0.1): no token.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Interceptor } from '@connectrpc/connect';
import { env } from './config.js';
import { Errors } from './errors.js';

const HEADER = 'authorization';
const digest = (value: string) => createHash('sha256').update(value).digest();

/** The fewest characters a token may have: it is the only guard of the listener. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** AUTH_ADMIN_TOKEN, read by Auth and by the listener's clients (the console, the admin CLI). */
export const adminTokenConfig = {
  AUTH_ADMIN_TOKEN: env.checked((raw) => {
    if (raw !== undefined && !/^[\x21-\x7e]+$/.test(raw)) throw new Error('printable ASCII, no spaces');
    if (raw !== undefined && raw.length < ADMIN_TOKEN_MIN_LENGTH) throw new Error(`${raw.length} characters`);
    return raw;
  }, `at least ${ADMIN_TOKEN_MIN_LENGTH} printable ASCII characters, e.g. from openssl rand -hex 32`),
};

/** Server side: refuse any call but a health check that does not carry `Bearer <token>`. */
export function adminTokenServerInterceptor(token: string): Interceptor {
  const expected = digest(`Bearer ${token}`);
  return (next) => async (req) => {
    // The kubelet's and the ops listener's health checks carry no token.
    if (req.service.typeName === 'grpc.health.v1.Health') return next(req);
    // Hashes of equal length, compared in constant time.
    if (!timingSafeEqual(digest(req.header.get(HEADER) ?? ''), expected)) throw Errors.adminTokenRequired();
    return next(req);
  };
}

/** Client side: send the token with every call (the console, the admin CLI). */
export function adminTokenClientInterceptor(token: string): Interceptor {
  return (next) => async (req) => {
    req.header.set(HEADER, `Bearer ${token}`);
    return next(req);
  };
}

/** The interceptors a client of the admin listener needs: the token's when one is set. */
export const adminClientInterceptors = (token: string | undefined): Interceptor[] => (token ? [adminTokenClientInterceptor(token)] : []);
