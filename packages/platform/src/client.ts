import type { DescService } from '@bufbuild/protobuf';
import { createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { breakerInterceptor } from './breaker.js';
import { requestIdClientInterceptor } from './interceptors.js';

export interface ServiceClient<T extends DescService> {
  client: Client<T>;
  /** Ends the HTTP/2 session (tests and shutdown). */
  close(): void;
}

/**
 * A gRPC client over one long-lived HTTP/2 session (no per-request connection setup), carrying
 * the request id and guarded by a circuit breaker.
 */
export function createServiceClient<T extends DescService>(
  service: T,
  baseUrl: string,
  options: { interceptors?: Interceptor[]; breaker?: boolean } = {},
): ServiceClient<T> {
  const sessionManager = new Http2SessionManager(baseUrl, { pingIntervalMs: 30_000, idleConnectionTimeoutMs: 60_000 });
  const interceptors = [requestIdClientInterceptor, ...(options.interceptors ?? [])];
  if (options.breaker !== false) interceptors.unshift(breakerInterceptor(service.typeName));
  const transport = createGrpcTransport({ baseUrl, sessionManager, interceptors });
  return { client: createClient(service, transport), close: () => sessionManager.abort() };
}
