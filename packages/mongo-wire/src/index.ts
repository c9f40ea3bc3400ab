// @media/mongo-wire: a MongoDB-wire-compatible server for tests (bson + mingo, in memory).
import { WireServer, type WireServerOptions } from './server.js';

export { WireServer, type WireServerOptions } from './server.js';

export interface RunningWireServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /**
   * Drops every connection and stops listening, runs `whileDown` (if given), then listens again
   * on the same port with the same data (fault tests). Listens again even if `whileDown` throws.
   */
  restart(whileDown?: () => Promise<void> | void): Promise<void>;
}

/** Starts a server on 127.0.0.1 (port 0 = any free port). */
export async function startMongoWireServer(opts: WireServerOptions = {}): Promise<RunningWireServer> {
  const server = new WireServer(opts);
  const port = await server.listen(opts.port ?? 0);
  return {
    url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    port,
    stop: () => server.stop(),
    async restart(whileDown) {
      await server.stop();
      try {
        await whileDown?.();
      } finally {
        await server.listen(port);
      }
    },
  };
}
