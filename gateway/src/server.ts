import type { FastifyInstance } from 'fastify';
import type { EventBus } from '@media/eventbus';
import { connectBusAtStart, createLogger, localUrl } from '@media/platform';
import { build, type GatewayDeps } from './app.js';
import { createClients } from './clients.js';
import { startDocs } from './docs-server.js';
import type { GatewayConfig } from './config.js';

export interface RunningGateway {
  url: string;
  /** The API reference (DOCS_PORT), when it is served. */
  docsUrl?: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startGateway(
  config: GatewayConfig,
  shared: { bus?: EventBus } = {},
  testDeps: Pick<GatewayDeps, 'rate'> = {},
): Promise<RunningGateway> {
  const clients = createClients(config);
  const bus =
    shared.bus ?? (await connectBusAtStart(config.NATS_URL, createLogger('eventbus', config.LOG_LEVEL), config.NATS_STREAM_REPLICAS));
  const app = await build({ config, clients, bus, ...testDeps });
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  const url = localUrl(config.HOST, Number(new URL(address).port));
  const docs =
    config.DOCS_PORT === undefined
      ? undefined
      : await startDocs({
          port: config.DOCS_PORT,
          host: config.DOCS_HOST,
          document: app.swagger() as unknown as Record<string, unknown>,
          apiUrl: url,
          logLevel: config.LOG_LEVEL,
        }).catch(async (err) => {
          await app.close();
          throw err;
        });
  return {
    url,
    docsUrl: docs?.url,
    app,
    async close() {
      await docs?.close();
      // Requests in progress get SHUTDOWN_GRACE_SEC to finish; then their connections are closed,
      // which cancels their RPCs (rpcOptions): a sync run is stopped, recorded failed, not charged.
      const cut = setTimeout(() => {
        app.log.warn({ graceSec: config.SHUTDOWN_GRACE_SEC }, 'shutting down: closing connections of requests still in progress');
        app.server.closeAllConnections();
      }, config.SHUTDOWN_GRACE_SEC * 1000);
      try {
        await app.close();
      } finally {
        clearTimeout(cut);
      }
      clients.close();
      if (!shared.bus) await bus.close();
    },
  };
}
