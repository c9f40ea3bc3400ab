import type { DescService } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { breakerInterceptor } from './breaker.js';
import { requestIdClientInterceptor } from './interceptors.js';
import { tracingClientInterceptor } from './tracing.js';
import { metrics, recordsPerRequest } from './metrics.js';
import { peerCancelInterceptor } from './peer-cancel.js';

/** Counts each call by service, method and code, and times it (media_rpc_client_*). */
export const rpcMetricsInterceptor: Interceptor = (next) => async (req) => {
  if (!recordsPerRequest()) return next(req);
  const labels = { service: req.service.name, method: req.method.name };
  const end = metrics.rpcDuration.startTimer(labels);
  try {
    const res = await next(req);
    metrics.rpcCalls.inc({ ...labels, code: 'OK' });
    return res;
  } catch (err) {
    metrics.rpcCalls.inc({ ...labels, code: Code[ConnectError.from(err).code] ?? 'Unknown' });
    throw err;
  } finally {
    end();
  }
};

export interface ServiceClient<T extends DescService> {
  client: Client<T>;
  /** Ends the HTTP/2 session (tests and shutdown). */
  close(): void;
}

/**
 * A client over one long-lived HTTP/2 session (no per-request connection setup), carrying the
 * request id and guarded by a circuit breaker; a call the peer hangs up on fails as UNAVAILABLE.
 * It speaks the Connect protocol with binary protobuf: in connect-node that costs about half the
 * CPU per call of gRPC framing (measured: 3,300 vs 1,700 unary calls/s on one core). The servers
 * accept gRPC as well.
 */
export function createServiceClient<T extends DescService>(
  service: T,
  baseUrl: string,
  options: { interceptors?: Interceptor[]; breaker?: boolean } = {},
): ServiceClient<T> {
  const sessionManager = new Http2SessionManager(baseUrl, { pingIntervalMs: 30_000, idleConnectionTimeoutMs: 60_000 });
  // Innermost, so the breaker and the caller see a peer's hang-up as UNAVAILABLE.
  const interceptors = [requestIdClientInterceptor, ...(options.interceptors ?? []), peerCancelInterceptor];
  if (options.breaker !== false) interceptors.unshift(breakerInterceptor(service.typeName));
  // Outermost: a breaker's refusal is counted as the UNAVAILABLE the caller sees.
  interceptors.unshift(rpcMetricsInterceptor);
  // Outermost of all: the call's span covers everything the caller waits for.
  interceptors.unshift(tracingClientInterceptor);
  const transport = createConnectTransport({ baseUrl, httpVersion: '2', useBinaryFormat: true, sessionManager, interceptors });
  return { client: createClient(service, transport), close: () => sessionManager.abort() };
}

/**
 * Several services' clients by name, and one close() for all their sessions (a gateway's or the
 * console's backends): `clientSet({ jobs: createServiceClient(JobsService, url), ... })`.
 */
export function clientSet<M extends Record<string, { client: unknown; close(): void }>>(
  made: M,
): { [K in keyof M]: M[K]['client'] } & { close(): void } {
  const clients = Object.fromEntries(Object.entries(made).map(([name, m]) => [name, m.client]));
  return Object.assign(clients as { [K in keyof M]: M[K]['client'] }, {
    close: () => {
      for (const m of Object.values(made)) m.close();
    },
  });
}
