import { localUrl } from '@media/platform';
import { buildConsole } from './app.js';
import { createClients } from './clients.js';
import type { ConsoleConfig } from './config.js';

export interface RunningConsole {
  url: string;
  close(): Promise<void>;
}

export async function startConsole(config: ConsoleConfig & { CONSOLE_PORT: number }): Promise<RunningConsole> {
  const clients = createClients(config);
  const app = await buildConsole({ config, clients });
  try {
    const address = await app.listen({ port: config.CONSOLE_PORT, host: config.CONSOLE_HOST });
    return {
      url: localUrl(config.CONSOLE_HOST, Number(new URL(address).port)),
      async close() {
        await app.close();
        clients.close();
      },
    };
  } catch (err) {
    clients.close();
    throw err;
  }
}
