// A local-disk store behind its signed-URL handler on a loopback port, as the Storage service
// mounts it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tempDir } from '@media/testkit';
import { createLocalDiskBlobStore, createSignedBlobHandler, type LocalDiskBlobStore, type SignedBlobHooks } from '../src/index.js';

export interface LocalServer {
  store: LocalDiskBlobStore;
  root: string;
  /** The handler calls whatever is set here at the time of each request. */
  hooks: SignedBlobHooks;
  /** The HTTP server, for tests that follow a request's own events. */
  http: Server;
  close(): Promise<void>;
}

export async function startLocalServer(): Promise<LocalServer> {
  const dir = await tempDir('blobstore-');
  const hooks: SignedBlobHooks = {};
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req, res) => handle!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const publicBaseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = createLocalDiskBlobStore({ root: dir.path, publicBaseUrl, signingSecret: 'test-secret' });
  handle = createSignedBlobHandler(store, store, {
    beforeUpload: (key, info) => hooks.beforeUpload?.(key, info),
    afterUpload: (key, info) => hooks.afterUpload?.(key, info),
    beforeDownload: (key) => hooks.beforeDownload?.(key),
    onError: (err) => (hooks.onError ?? console.error)(err),
  });
  return {
    store,
    root: dir.path,
    hooks,
    http: server,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await dir.remove();
    },
  };
}
