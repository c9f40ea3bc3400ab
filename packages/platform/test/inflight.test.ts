// A stopping service lets calls in progress finish within its grace, then cancels the rest on
// their own signal and waits for their handlers to record the outcome before close() resolves
// (the store is closed after it).
import { pino } from 'pino';
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { gate, settled, waitFor, waitForPortClosed } from '@media/testkit';
import { createServiceClient, startConnectServer } from '../src/index.js';

/** close() has started: its listener refuses new connections. */
const closeStarted = (url: string) => waitForPortClosed(Number(new URL(url).port));

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
  const events: string[] = [];
  const release = gate();
  const { server, billing, inHandler } = await serve(() => release.opened, 5000);
  try {
    const call = billing.client.getQuota({ accountId: 'acc_1' });
    await inHandler;
    const closing = server.close().then(() => events.push('closed'));
    await closeStarted(server.url);
    expect(await settled(closing)).toBe(false);
    events.push('released');
    release.open();
    await closing;
    expect(events).toEqual(['released', 'closed']);
    expect((await call).usedGbSec).toBe(1);
  } finally {
    billing.close();
  }
});

test('past the grace the call is cancelled on its signal, and close() waits for its handler to finish recording', async () => {
  const events: string[] = [];
  const recorded = gate();
  const withinGrace = gate();
  let handlers = 0;
  const { server, billing, inHandler } = await serve(async (ctx) => {
    if (handlers++ === 1) {
      // The second call ends while close() is in its grace: it is answered, not cancelled.
      await withinGrace.opened;
      events.push('second answered');
      return;
    }
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
    events.push('aborted');
    await recorded.opened; // killing ffmpeg, writing the job
    events.push('recorded');
    throw ctx.signal.reason;
  }, 1000);
  try {
    const call = billing.client.getQuota({ accountId: 'acc_1' }).catch((e: unknown) => e);
    await inHandler;
    const second = billing.client.getQuota({ accountId: 'acc_1' });
    await waitFor('the second call in its handler', () => handlers === 2);
    const closing = server.close().then(() => events.push('closed'));
    await closeStarted(server.url);
    withinGrace.open();
    expect((await second).usedGbSec).toBe(1);
    await waitFor('the first call cancelled past the grace', () => events.includes('aborted'));
    expect(await settled(closing)).toBe(false);
    recorded.open();
    await closing;
    expect(events).toEqual(['second answered', 'aborted', 'recorded', 'closed']);
    // The caller is told to come back: a 503 with Retry-After at the gateway.
    const err = (await call) as ConnectError;
    expect(err).toBeInstanceOf(ConnectError);
    expect(err.code).toBe(Code.Unavailable);
  } finally {
    billing.close();
  }
});

test('with no call in progress close() does not wait', async () => {
  const graceMs = 60_000;
  const { server, billing } = await serve(async () => {}, graceMs);
  billing.close();
  // Had close() waited out the grace, the grace's end would come first (and jest's timeout before it).
  const graceOver = new Promise((r) => setTimeout(r, graceMs, 'grace over').unref());
  expect(await Promise.race([server.close().then(() => 'closed'), graceOver])).toBe('closed');
});

test('a server stream in progress counts until its last message: close() waits for it and every chunk arrives', async () => {
  const rest = gate();
  const { server, inHandler } = await listen(
    (router, entered) =>
      router.service(StorageService, {
        async *readFile() {
          entered();
          for (let i = 0; i < 6; i++) {
            if (i === 3) await rest.opened; // the rest of the file is still being read
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
      got.push('end');
    })();
    await inHandler;
    await waitFor('the first chunks', () => got.length === 3);
    const closing = server.close().then(() => got.push('closed'));
    await closeStarted(server.url);
    expect(await settled(closing)).toBe(false);
    rest.open();
    await Promise.all([closing, reading]);
    expect(got.slice(0, 6)).toEqual(['part0', 'part1', 'part2', 'part3', 'part4', 'part5']);
    expect(got.indexOf('closed')).toBeGreaterThan(5); // after the last chunk
  } finally {
    storage.close();
  }
});
