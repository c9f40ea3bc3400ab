// A directory that expired (or was deleted) while a job ran: storing its outputs answers NotFound,
// and the job ends with a sentence saying so (404, nothing charged), not "Internal error".
import { Code, ConnectError } from '@connectrpc/connect';
import { createLogger } from '@media/platform';
import { createOutputStore } from '../src/domain/stages/store-outputs.js';

const gone = () => new ConnectError('Directory not found', Code.NotFound);
const storage = { storeLocalFile: async () => Promise.reject(gone()), storeFile: async () => Promise.reject(gone()) };

test('the output directory gone mid-job is named, as a 404', async () => {
  const outputs = createOutputStore(storage as unknown as Parameters<typeof createOutputStore>[0], createLogger('test', 'silent'));
  await expect(outputs.store('acc', 'dir_x', { fileName: 'o.png', path: '/nonexistent/o.png', size: 1 })).rejects.toMatchObject({
    status: 404,
    message: 'Directory not found: the output directory expired or was deleted while the job ran; nothing was charged',
  });
});

test('other store failures stay what they were', async () => {
  const failing = {
    storeLocalFile: async () => Promise.reject(new ConnectError('disk full', Code.Internal)),
    storeFile: async () => Promise.reject(new ConnectError('x', Code.Internal)),
  };
  const outputs = createOutputStore(failing as unknown as Parameters<typeof createOutputStore>[0], createLogger('test', 'silent'));
  await expect(outputs.store('acc', 'dir_x', { fileName: 'o.png', path: '/nonexistent/o.png', size: 1 })).rejects.toBeInstanceOf(
    ConnectError,
  );
});
