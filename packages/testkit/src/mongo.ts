// MongoDB for tests: an external server when MONGODB_URL is set (CI with a real MongoDB), else the
// in-process MongoDB-wire test server on 127.0.0.1 and a free port.
import { startMongoWireServer } from '@media/mongo-wire';

export interface TestMongo {
  url: string;
  /** Stops what this call started; a no-op for an external server. */
  stop(): Promise<void>;
  /** True when MONGODB_URL points at a server shared with other runs: use unique database names. */
  external: boolean;
}

export async function startMongo(): Promise<TestMongo> {
  const url = process.env.MONGODB_URL;
  if (url) return { url, stop: async () => {}, external: true };
  const server = await startMongoWireServer();
  return { url: server.url, stop: () => server.stop(), external: false };
}
