// Connect + gRPC + gRPC-Web over HTTP/2 cleartext on one port per service.
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ConnectRouter, Interceptor } from '@connectrpc/connect';
import { registerHealth, type HealthOptions } from './health.js';
import { registerReflection } from './reflection.js';
import { trackInflight } from './inflight.js';
import { serverInterceptor } from './interceptors.js';
import type { Logger } from './logger.js';
import { createNodeHandler } from './node-handler.js';
import { tracingServerInterceptor } from './tracing.js';

export interface ConnectServerOptions {
  name: string;
  logger: Logger;
  routes: (router: ConnectRouter) => void;
  health: HealthOptions;
  /** Checks of this listener's own (after the request id and error mapping, so refusals are logged as answers). */
  interceptors?: Interceptor[];
  host: string;
  port: number;
  /** On close, how long calls in progress may take before they are cancelled (default 20 s). */
  shutdownGraceMs?: number;
  /** Then how long cancelled calls get to settle (default 10 s). */
  shutdownSettleMs?: number;
}

export interface RunningServer {
  /** Base URL clients use, e.g. http://127.0.0.1:50051 */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Where this machine reaches a listener on `host`: a wildcard address means loopback. */
export function localUrl(host: string, port: number): string {
  const reach = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${port}`;
}

export async function startConnectServer(options: ConnectServerOptions): Promise<RunningServer> {
  const inflight = trackInflight();
  const handler = createNodeHandler({
    routes(router) {
      options.routes(router);
      registerHealth(router, options.health);
      registerReflection(router);
    },
    // Tracing outermost: the handler's log lines, and the errors logged, carry its trace id.
    interceptors: [tracingServerInterceptor, serverInterceptor(options.logger), ...(options.interceptors ?? []), inflight.interceptor],
    logger: options.logger,
  });
  const server = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // Requests from their first frame: a call whose body is still arriving when close() starts is
  // not yet a handler's, but will be (health checks aside, as in trackInflight).
  let openStreams = 0;
  server.on('stream', (stream, headers) => {
    if (String(headers[':path'] ?? '').startsWith('/grpc.health.v1.Health/')) return;
    openStreams++;
    stream.once('close', () => openStreams--);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ port, host: options.host }, `${options.name} listening`);
  return {
    url: localUrl(options.host, port),
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // No new calls; clients keep HTTP/2 sessions open, so end them once their streams are done.
      for (const session of sessions) session.close();
      await inflight.drain(options.shutdownGraceMs ?? 20_000, () => openStreams > 0, options.shutdownSettleMs);
      setTimeout(() => {
        for (const s of sessions) s.destroy();
      }, 1000).unref();
      await closed;
    },
  };
}
