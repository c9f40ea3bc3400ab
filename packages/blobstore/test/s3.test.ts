import { startS3Server } from '@media/testkit';
import { createS3BlobStore } from '../src/s3.js';
import { runBlobStoreContract } from './contract.js';

runBlobStoreContract(
  'S3 (s3rver)',
  async () => {
    const s3 = await startS3Server();
    const store = createS3BlobStore({ ...s3, forcePathStyle: true });
    return {
      store,
      async teardown() {
        store.destroy();
        await s3.stop();
      },
    };
  },
  { verifiesSignatures: false, longSegments: false },
);
