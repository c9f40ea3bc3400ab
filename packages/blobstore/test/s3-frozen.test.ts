// A store that accepts connections and then says nothing (paused, overloaded) fails each call
// after the idle timeout, as an outage the breaker counts, instead of hanging its caller forever.
import { createServer, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { isBlobStoreOutage } from '../src/index.js';
import { createS3BlobStore } from '../src/s3.js';

test('a silent S3 endpoint fails head, get and put as an outage after the idle timeout', async () => {
  const sockets: Socket[] = [];
  let requests = 0;
  const silent = createServer((socket) => {
    sockets.push(socket);
    // Read the request, answer nothing.
    socket.on('data', (chunk) => {
      if (chunk.toString('latin1').match(/^(GET|HEAD|PUT|POST) /)) requests++;
    });
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  const store = createS3BlobStore({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    bucket: 'b',
    accessKeyId: 'k',
    secretAccessKey: 's',
    forcePathStyle: true,
    idleTimeoutMs: 200,
  });
  try {
    for (const call of [() => store.head('a/b'), () => store.get('a/b'), () => store.put('a/b', Readable.from([Buffer.from('x')]))]) {
      const err = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect(isBlobStoreOutage(err)).toBe(true);
    }
    // The store was reached (the calls waited on its silence, not on a refused connection).
    expect(requests).toBeGreaterThanOrEqual(3);
  } finally {
    store.destroy();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
}, 30_000);
