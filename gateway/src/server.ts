import type { FastifyInstance } from 'fastify';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { build } from './app.js';
import { createClients } from './clients.js';
import type { GatewayConfig } from './config.js';

export interface RunningGateway {
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startGateway(config: GatewayConfig, shared: { bus?: EventBus } = {}): Promise<RunningGateway> {
  const clients = createClients(config);
  const bus = shared.bus ?? (await connectEventBus({ natsUrl: config.NATS_URL }));
  const app = await build({ config, clients, bus });
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  const port = new URL(address).port;
  return {
    url: `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`,
    app,
    async close() {
      await app.close();
      clients.close();
      if (!shared.bus) await bus.close();
    },
  };
}
