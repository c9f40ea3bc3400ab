// A service that closes its connection mid-call (shutting down, a proxy dropping it) must read as
// "unavailable" (503 + Retry-After, retried by async work), not as a 500; a call we cancel
// ourselves stays canceled.
import { pino } from 'pino';
import { Code, ConnectError } from '@connectrpc/connect';
import { Health } from '@media/proto/grpc/health/v1/health_pb.js';
import { startTcpProxy } from '@media/testkit';
import { createServiceClient, isRetryableFault, isTransportFailure, startConnectServer, toHttpError } from '../src/index.js';

test('a call or stream the peer hangs up on fails as UNAVAILABLE; one we abort stays CANCELED', async () => {
  let entered!: () => void;
  let hang = false;
  const server = await startConnectServer({
    name: 'test',
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    routes: () => {},
    // While `hang`, a check stays in the handler until the connection goes.
    health: { services: [], check: () => (hang ? new Promise<boolean>(() => entered()) : Promise.resolve(true)) },
  });
  const proxy = await startTcpProxy('127.0.0.1', server.port);
  const { client, close } = createServiceClient(Health, `http://127.0.0.1:${proxy.port}`, { breaker: false });
  try {
    await client.check({ service: '' });
    hang = true;

    // The connection closes cleanly while the call is in the handler.
    const inHandler = new Promise<void>((r) => (entered = r));
    const hungUp = client.check({ service: '' }).catch((e: unknown) => e);
    await inHandler;
    await proxy.cut();
    const err = (await hungUp) as ConnectError;
    expect(err).toBeInstanceOf(ConnectError);
    expect(err.code).toBe(Code.Unavailable);
    expect(err.rawMessage).toMatch(/^grpc\.health\.v1\.Health closed the call: /);
    expect(isTransportFailure(err)).toBe(true);
    expect(isRetryableFault(err)).toBe(true);
    expect(toHttpError(err)).toMatchObject({ status: 503, retryAfterSec: 5 });

    // Our own abort: canceled, not a dependency failure.
    await proxy.restore();
    const aborter = new AbortController();
    const inHandler2 = new Promise<void>((r) => (entered = r));
    const aborted = client.check({ service: '' }, { signal: aborter.signal }).catch((e: unknown) => e);
    await inHandler2;
    aborter.abort();
    const own = (await aborted) as ConnectError;
    expect(own.code).toBe(Code.Canceled);
    expect(isTransportFailure(own)).toBe(false);

    // A server stream cut between two messages (Watch checks again only after 5 s).
    hang = false;
    const watch = client.watch({ service: '' })[Symbol.asyncIterator]();
    expect((await watch.next()).done).toBe(false);
    await proxy.cut();
    await expect(watch.next()).rejects.toMatchObject({ code: Code.Unavailable });
  } finally {
    close();
    await proxy.close();
    await server.close();
  }
});
