// MongoDB for tests: an external server when MONGODB_URL is set (CI with a real MongoDB), else the
// MongoDB-wire test server (in a worker thread) on 127.0.0.1 and a free port.
import { startMongoWireWorker } from '@media/mongo-wire';

export interface TestMongo {
  url: string;
  /** Stops what this call started; a no-op for an external server. */
  stop(): Promise<void>;
  /** True when MONGODB_URL points at a server shared with other runs: use unique database names. */
  external: boolean;
  /** Drops every database whose name starts with `prefix` (an external server keeps nothing of the run). */
  dropDatabases(prefix: string): Promise<void>;
  /**
   * Stops the server (every connection dropped), runs `whileDown`, and starts it again on the
   * same port with the same data (fault tests). Throws for an external server.
   */
  restart(whileDown?: () => Promise<void> | void): Promise<void>;
}

const cannotRestart = async (): Promise<void> => {
  throw new Error('restart() is not possible with an external server (MONGODB_URL is set)');
};

export async function startMongo(): Promise<TestMongo> {
  const url = process.env.MONGODB_URL;
  if (url)
    return { url, stop: async () => {}, external: true, dropDatabases: (prefix) => dropDatabases(url, prefix), restart: cannotRestart };
  const server = await startMongoWireWorker();
  return {
    url: server.url,
    stop: () => server.stop(),
    external: false,
    dropDatabases: (prefix) => dropDatabases(server.url, prefix),
    restart: (whileDown) => server.restart(whileDown),
  };
}

async function dropDatabases(url: string, prefix: string): Promise<void> {
  if (!prefix) throw new Error('dropDatabases needs a non-empty prefix');
  const { MongoClient } = await import('mongodb');
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 5000 });
  try {
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    for (const { name } of databases) if (name.startsWith(prefix)) await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}
