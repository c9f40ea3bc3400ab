// A call whose caller has gone (cancelled, or its session closed) before the handler answers: the
// answer cannot be written, which is routine. It must reach our JSON log as a debug line, never
// connect-node's console.error with a stack outside the log stream.
import { jest } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Health } from '@media/proto/grpc/health/v1/health_pb.js';
import { createServiceClient, startConnectServer } from '../src/index.js';

test('an answer the caller is no longer there for is logged at debug, not printed to stderr', async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  let entered!: () => void;
  let release!: (ok: boolean) => void;
  const inHandler = new Promise<void>((r) => (entered = r));
  const server = await startConnectServer({
    name: 'test',
    logger: pino({ level: 'debug' }, sink),
    host: '127.0.0.1',
    port: 0,
    routes: () => {},
    health: {
      services: [],
      check: () =>
        new Promise<boolean>((resolve) => {
          release = resolve;
          entered();
        }),
    },
  });
  const { client, close } = createServiceClient(Health, server.url, { breaker: false });
  try {
    const aborter = new AbortController();
    const call = client.check({ service: '' }, { signal: aborter.signal }).catch((e: unknown) => e);
    await inHandler;
    aborter.abort();
    await call;
    await new Promise((r) => setTimeout(r, 50)); // the cancellation reaches the server
    release(true); // the handler answers now, to nobody
    for (let i = 0; i < 100 && !lines.some((l) => l.rpc === 'grpc.health.v1.Health/Check'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(consoleError).not.toHaveBeenCalled();
    expect(lines).toContainEqual(expect.objectContaining({ level: 20, rpc: 'grpc.health.v1.Health/Check', msg: 'the caller went away before the answer was written' }));
  } finally {
    consoleError.mockRestore();
    close();
    await server.close();
  }
});
