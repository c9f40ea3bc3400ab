// A CSV export whose Billing fails after the first page cannot end as if it were complete: the
// 200 was sent, so the connection is cut before the chunked body's end, which every HTTP client
// reports (curl: "transfer closed with outstanding read data remaining", exit 18; fetch: a
// rejected read). Billing here answers one page, then fails.
import type { FastifyInstance } from 'fastify';
import { Code, ConnectError } from '@connectrpc/connect';
import { toTimestamp } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { build, createClients } from '../src/index.js';
import { replicaConfig } from './helpers.js';

let stack: TestStack;
let gateway: FastifyInstance;
let closeClients: () => void;
let base: string;

beforeAll(async () => {
  stack = await startTestStack();
  const config = replicaConfig(stack, { PORT: '0', HOST: '127.0.0.1' });
  const clients = createClients(config);
  closeClients = clients.close;
  let calls = 0;
  const row = {
    requestId: 'job_aaaaaaaaaaaaaaaaaaaa',
    completedAt: toTimestamp(new Date('2026-11-02T10:00:00Z')),
    keyId: 'key_x',
    gbSec: 0.5,
    amountUsd: 0.00666,
  };
  const billing = new Proxy(clients.billing, {
    get: (target, name, receiver) =>
      name === 'listUsage'
        ? async () => {
            calls += 1;
            if (calls === 1) return { rows: [row], nextCursor: 'next' };
            throw new ConnectError('billing went away', Code.Unavailable);
          }
        : Reflect.get(target, name, receiver),
  });
  gateway = await build({ config, clients: { ...clients, billing }, bus: stack.bus });
  await gateway.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(gateway.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await gateway?.close();
  closeClients?.();
  await stack?.close();
});

test('the export is cut, not ended: the client sees it incomplete', async () => {
  const { authorization } = await stack.newAccount();
  const res = await fetch(`${base}/account/usage?month=2026-11`, { headers: { authorization } });
  expect(res.status).toBe(200);
  expect(res.headers.get('transfer-encoding')).toBe('chunked');
  await expect(res.text()).rejects.toThrow();
});
