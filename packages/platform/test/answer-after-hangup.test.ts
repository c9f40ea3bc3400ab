// A call whose caller has gone (cancelled, or its session closed) before the handler answers: the
// answer cannot be written, which is routine. It must reach our JSON log as a debug line, never
// connect-node's console.error with a stack outside the log stream.
import { jest } from '@jest/globals';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { createServiceClient, startConnectServer } from '../src/index.js';
import { captureLog } from './log-capture.js';

test('an answer the caller is no longer there for is logged at debug, not printed to stderr', async () => {
  const { logger, lines } = captureLog('debug');
  const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  let entered!: () => void;
  const inHandler = new Promise<void>((r) => (entered = r));
  const server = await startConnectServer({
    name: 'test',
    logger,
    host: '127.0.0.1',
    port: 0,
    routes: (router) =>
      router.service(BillingService, {
        // Answers only once the caller has cancelled: the answer then has nowhere to go.
        async getQuota(_req, ctx) {
          entered();
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
          return {};
        },
      }),
    health: { services: [] },
  });
  const { client, close } = createServiceClient(BillingService, server.url, { breaker: false });
  try {
    const aborter = new AbortController();
    const call = client.getQuota({}, { signal: aborter.signal, headers: { 'x-request-id': 'req_gone' } }).catch((e: unknown) => e);
    await inHandler;
    aborter.abort();
    await call;
    const logged = () => lines.find((l) => l.msg === 'the caller went away before the answer was written');
    for (let i = 0; i < 200 && !logged(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(logged()).toMatchObject({ level: 20, rpc: 'GetQuota', api: 'media.billing.v1.BillingService', requestId: 'req_gone' });
    expect(consoleError).not.toHaveBeenCalled();
  } finally {
    consoleError.mockRestore();
    close();
    await server.close();
  }
});
