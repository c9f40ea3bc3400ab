// The OpenAPI document of the gateway's routes, without starting anything: build() on clients
// that are never called. docs/openapi.json is this, written by `npm run openapi`.
import { InProcessEventBus } from '@media/eventbus';
import { loadConfig } from '@media/platform';
import { build } from './app.js';
import { createClients } from './clients.js';
import { gatewayConfigSpec } from './config.js';

export async function openapiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig(gatewayConfigSpec, { LOG_LEVEL: 'silent' });
  const clients = createClients(config);
  const bus = new InProcessEventBus();
  const app = await build({ config, clients, bus });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    clients.close();
    await bus.close();
  }
}

/** The document as committed: two-space JSON and a final newline. */
export const documentText = (doc: unknown) => `${JSON.stringify(doc, null, 2)}\n`;
