// A stopping service lets calls in progress finish within its grace, then cancels the rest on
// their own signal and waits for their handlers to record the outcome before close() resolves
// (the store is closed after it).
import { pino } from 'pino';
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { createServiceClient, startConnectServer } from '../src/index.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A server of `routes`, on loopback, and a promise that resolves once a handler calls `entered`. */
async function listen(routes: (router: ConnectRouter, entered: () => void) => void, shutdownGraceMs: number) {
  let entered!: () => void;
  const inHandler = new Promise<void>((r) => (entered = r));
  const server = await startConnectServer({
    name: 'test',
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    routes: (router) => routes(router, entered),
    health: { services: [], check: async () => true },
    shutdownGraceMs,
  });
  return { server, inHandler };
}

/** Billing's GetQuota running `handler` in its handler. */
async function serve(handler: (ctx: HandlerContext) => Promise<void>, shutdownGraceMs: number) {
  const { server, inHandler } = await listen(
    (router, entered) =>
      router.service(BillingService, {
        async getQuota(_req, ctx) {
          entered();
          await handler(ctx);
          return { usedGbSec: 1 };
        },
      }),
    shutdownGraceMs,
  );
  const billing = createServiceClient(BillingService, server.url, { breaker: false });
  return { server, billing, inHandler };
}

test('a call that ends within the grace is answered, and close() waits for it', async () => {
  const { server, billing, inHandler } = await serve(() => sleep(300), 5000);
  try {
    const call = billing.client.getQuota({ accountId: 'acc_1' });
    await inHandler;
    const t0 = Date.now();
    await server.close();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect((await call).usedGbSec).toBe(1);
  } finally {
    billing.close();
  }
});

test('past the grace the call is cancelled on its signal, and close() waits for its handler to finish recording', async () => {
  const events: string[] = [];
  const { server, billing, inHandler } = await serve(async (ctx) => {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
    events.push('aborted');
    await sleep(200); // killing ffmpeg, writing the job
    events.push('recorded');
    throw ctx.signal.reason;
  }, 300);
  try {
    const call = billing.client.getQuota({ accountId: 'acc_1' }).catch((e: unknown) => e);
    await inHandler;
    const t0 = Date.now();
    await server.close();
    events.push('closed');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
    expect(events).toEqual(['aborted', 'recorded', 'closed']);
    // The caller is told to come back: a 503 with Retry-After at the gateway.
    const err = (await call) as ConnectError;
    expect(err).toBeInstanceOf(ConnectError);
    expect(err.code).toBe(Code.Unavailable);
  } finally {
    billing.close();
  }
});

test('with no call in progress close() does not wait', async () => {
  const { server, billing } = await serve(async () => {}, 60_000);
  billing.close();
  const t0 = Date.now();
  await server.close();
  expect(Date.now() - t0).toBeLessThan(1000);
});

test('a server stream in progress counts until its last message: close() waits for it and every chunk arrives', async () => {
  const { server, inHandler } = await listen(
    (router, entered) =>
      router.service(StorageService, {
        async *readFile() {
          entered();
          for (let i = 0; i < 6; i++) {
            await sleep(60);
            yield { chunk: Buffer.from(`part${i}`) };
          }
        },
      }),
    5000,
  );
  const storage = createServiceClient(StorageService, server.url, { breaker: false });
  try {
    const got: string[] = [];
    const reading = (async () => {
      for await (const m of storage.client.readFile({})) got.push(Buffer.from(m.chunk).toString());
    })();
    await inHandler;
    const t0 = Date.now();
    await server.close();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    await reading;
    expect(got).toEqual(['part0', 'part1', 'part2', 'part3', 'part4', 'part5']);
  } finally {
    storage.close();
  }
});
