// The operations listener of a process (METRICS_PORT): /metrics for Prometheus, /livez (the
// process answers) and /readyz (the services it depends on answer their gRPC health checks, which
// include each one's database). Never on the API's or the services' own ports.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Health, HealthCheckResponse_ServingStatus as Status } from '@media/proto/grpc/health/v1/health_pb.js';
import { createServiceClient } from './client.js';
import { registry, setMetricsRecording } from './metrics.js';
import { localUrl } from './server.js';
import type { Stoppable } from './main.js';

export interface OpsServerOptions {
  port: number;
  host: string;
  /** gRPC services whose overall health makes this process ready (a service's own). */
  readiness: Record<string, string>;
  /**
   * gRPC services whose health /readyz reports without making the process unready, nor waiting on
   * them (a gateway's backends): a gateway answers 503 with Retry-After for a backend that is down,
   * which a balancer left with no ready gateway cannot (every gateway unready at once when one
   * backend is, or slow to answer when one is slow).
   */
  reported?: Record<string, string>;
  /** How long one readiness check may take (default 2 s). */
  checkTimeoutMs?: number;
}

export interface RunningOps {
  url: string;
  close(): Promise<void>;
}

export async function startOpsServer(opts: OpsServerOptions): Promise<RunningOps> {
  const client = ([name, url]: [string, string]) => ({ name, ...createServiceClient(Health, url, { breaker: false }) });
  const gating = Object.entries(opts.readiness).map(client);
  const reported = Object.entries(opts.reported ?? {}).map(client);
  const timeoutMs = opts.checkTimeoutMs ?? 2000;

  async function check({ name, client }: (typeof gating)[number]): Promise<readonly [string, string]> {
    try {
      const res = await client.check({ service: '' }, { timeoutMs });
      return [name, res.status === Status.SERVING ? 'ok' : 'not serving'] as const;
    } catch (err) {
      return [name, `unreachable: ${(err as Error).message}`] as const;
    }
  }

  // Reported checks never hold the answer (a balancer's check may allow well under their timeout):
  // it carries the last round finished; each request starts a new round unless one is under way.
  let lastReported: Record<string, string> = Object.fromEntries(reported.map((c) => [c.name, 'not checked yet']));
  let reporting: Promise<void> | undefined;
  async function readiness(): Promise<Record<string, string>> {
    if (!reporting && reported.length)
      reporting = Promise.all(reported.map(check))
        .then((checks) => {
          lastReported = Object.fromEntries(checks);
        })
        .finally(() => {
          reporting = undefined;
        });
    const own = await Promise.all(gating.map(check));
    return { ...lastReported, ...Object.fromEntries(own) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only\n');
    if (path === '/metrics') return send(res, 200, registry.contentType, await registry.metrics());
    if (path === '/livez') return send(res, 200, 'text/plain', 'ok\n');
    if (path === '/readyz') {
      const checks = await readiness();
      const ready = gating.every((g) => checks[g.name] === 'ok');
      return send(res, ready ? 200 : 503, 'application/json', `${JSON.stringify({ ready, checks })}\n`);
    }
    return send(res, 404, 'text/plain', 'not found: /metrics, /livez, /readyz\n');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => send(res, 500, 'text/plain', `${(err as Error).message}\n`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: localUrl(opts.host, port),
    async close() {
      // Connections are cut at once: a scraper or a client that stopped reading must not hold
      // the process's shutdown (close() alone waits for every connection to end).
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      for (const c of [...gating, ...reported]) c.close();
    },
  };
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

/** A process's service with its ops listener (when METRICS_PORT is set): both stop together. */
export async function withOpsServer<T extends Stoppable>(
  running: T,
  config: { METRICS_PORT?: number; METRICS_HOST: string; METRICS_ENABLED: boolean },
  readiness: Record<string, string>,
  reported: Record<string, string> = {},
): Promise<T & { opsUrl?: string }> {
  setMetricsRecording(config.METRICS_ENABLED);
  if (config.METRICS_PORT === undefined) return running;
  const ops = await startOpsServer({ port: config.METRICS_PORT, host: config.METRICS_HOST, readiness, reported }).catch(async (err) => {
    await running.close();
    throw err;
  });
  const closeService = running.close.bind(running);
  return Object.assign(running, {
    opsUrl: ops.url,
    async close() {
      await ops.close();
      await closeService();
    },
  });
}
