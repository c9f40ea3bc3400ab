import { runBlobStoreContract } from './contract.js';
import { startLocalServer } from './local-server.js';

runBlobStoreContract(
  'local disk',
  async () => {
    const server = await startLocalServer();
    return { store: server.store, teardown: () => server.close() };
  },
  { verifiesSignatures: true, longSegments: true },
);
