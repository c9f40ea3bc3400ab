// Idempotency-Key on the spec's POSTs: a request sent again with the same key gets the first
// answer, and the work (a job, an upload registration, a charge) happens once, also when the two
// arrive at different gateway replicas or at the same time.
import type { FastifyInstance } from 'fastify';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { build, createClients } from '../src/index.js';
import { PNG, replicaConfig, sleep } from './helpers.js';

let stack: TestStack;
let replica: FastifyInstance;
let closeClients: () => void;

beforeAll(async () => {
  stack = await startTestStack();
  const config = replicaConfig(stack);
  const clients = createClients(config);
  closeClients = clients.close;
  replica = await build({ config, clients, bus: stack.bus });
}, 60_000);
afterAll(async () => {
  await replica?.close();
  closeClients?.();
  await stack?.close();
});

type Answer = { status: number; body: Record<string, unknown> & { job_id?: string }; replayed: boolean };

function client(authorization: string) {
  return async (method: 'GET' | 'POST', url: string, body?: unknown, key?: string, app = stack.gateway.app): Promise<Answer> => {
    const res = await app.inject({
      method,
      url,
      headers: {
        authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.json(), replayed: res.headers['idempotent-replayed'] === 'true' };
  };
}

async function newUser() {
  const { authorization } = await stack.newAccount();
  const api = client(authorization);
  const reg = await api('POST', '/file', { file_name: 'in.png' });
  const upload = reg.body.upload as { url: string; headers: Record<string, string> };
  expect((await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: PNG })).status).toBe(200);
  const dirId = (reg.body.file as { dir_id: string }).dir_id;
  const task = (out: string) => ({ task: { inputs: [{ file_path: `${dirId}/in.png` }], outputs: [{ file: out }] } });
  /** The account's charged requests, once the charges have had time to arrive. */
  const charges = async (expected: number) => {
    for (let i = 0; i < 100; i++) {
      const rows = (await api('GET', '/account/usage?format=json')).body.rows as unknown[];
      if (rows.length >= expected) {
        await sleep(200); // and no more arrive
        return ((await api('GET', '/account/usage?format=json')).body.rows as unknown[]).length;
      }
      await sleep(50);
    }
    return 0;
  };
  const jobs = async () => (await api('GET', '/jobs')).body.pagination as { total: number };
  return { api, authorization, dirId, task, charges, jobs };
}

test('a sync task sent twice with one key: the same answer, one job, one charge', async () => {
  const { api, task, charges, jobs } = await newUser();
  const first = await api('POST', '/ffmpeg/process', task('out.jpg'), 'order-1001');
  expect(first).toMatchObject({ status: 200, replayed: false, body: { ok: true } });
  const again = await api('POST', '/ffmpeg/process', task('out.jpg'), 'order-1001');
  expect(again).toEqual({ ...first, replayed: true });
  expect((await jobs()).total).toBe(1);
  expect(await charges(1)).toBe(1);
  // Without a key, or with another, the same body is new work.
  expect((await api('POST', '/ffmpeg/process', task('out.jpg'), 'order-1002')).replayed).toBe(false);
  expect((await jobs()).total).toBe(2);
});

test('concurrent replays of an async submission create one job; the others wait their turn (409) or replay', async () => {
  const { api, task, charges, jobs } = await newUser();
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) => api('POST', '/ffmpeg/process/async', task('a.jpg'), 'job-A', i % 2 ? replica : undefined)),
  );
  const accepted = answers.filter((a) => a.status === 202);
  const busy = answers.filter((a) => a.status === 409);
  expect(accepted.length + busy.length).toBe(6);
  expect(accepted.filter((a) => !a.replayed)).toHaveLength(1);
  expect(new Set(accepted.map((a) => a.body.job_id)).size).toBe(1);
  for (const b of busy)
    expect(b.body).toEqual({
      ok: false,
      error: 'A request with this Idempotency-Key is still being answered. Retry when it has finished to get its answer.',
    });
  // Sent again later, through either replica: the first answer.
  const later = await api('POST', '/ffmpeg/process/async', task('a.jpg'), 'job-A', replica);
  expect(later).toEqual({ ...accepted.find((a) => !a.replayed)!, replayed: true });
  expect((await jobs()).total).toBe(1);
  expect(await charges(1)).toBe(1);
});

test('upload registration and directories: replayed, not registered twice', async () => {
  const { api } = await newUser();
  const dir = await api('POST', '/directory', { ttl: 600 }, 'dir-1', replica);
  expect((await api('POST', '/directory', { ttl: 600 }, 'dir-1')).body).toEqual(dir.body);
  const dirId = (dir.body.directory as { id: string }).id;
  const reg = await api('POST', '/file', { file_name: 'b.mp4', dir_id: dirId }, 'reg-1');
  const again = await api('POST', '/file', { file_name: 'b.mp4', dir_id: dirId }, 'reg-1', replica);
  expect(again).toEqual({ ...reg, replayed: true });
  // Without the key the name is taken: it was registered once.
  expect((await api('POST', '/file', { file_name: 'b.mp4', dir_id: dirId })).status).toBe(409);
  expect(((await api('GET', '/directory')).body.directories as unknown[]).length).toBe(2);
});

test('the same key with another request is refused, and keys are per account', async () => {
  const a = await newUser();
  const first = await a.api('POST', '/ffmpeg/process', a.task('x.jpg'), 'k-1');
  expect(first.status).toBe(200);
  for (const [url, body] of [
    ['/ffmpeg/process', a.task('y.jpg')],
    ['/ffmpeg/process/async', a.task('x.jpg')],
  ] as const) {
    expect(await a.api('POST', url, body, 'k-1')).toEqual({
      status: 409,
      replayed: false,
      body: {
        ok: false,
        error:
          'This Idempotency-Key was already used with a different request (method, path or body) in the last 24 hours. Use a new key for a new request.',
      },
    });
  }
  expect((await a.jobs()).total).toBe(1);
  // Another account's k-1 is its own.
  const b = await newUser();
  const theirs = await b.api('POST', '/ffmpeg/process', b.task('x.jpg'), 'k-1');
  expect(theirs).toMatchObject({ status: 200, replayed: false });
  expect(theirs.body.request_id).not.toBe(first.body.request_id);
});

test('an error is not stored: the same key runs again once the request can succeed', async () => {
  const { api, dirId, charges } = await newUser();
  const body = { task: { inputs: [{ file_path: `${dirId}/later.png` }], outputs: [{ file: 'z.jpg' }] } };
  const missing = await api('POST', '/ffmpeg/process', body, 'retry-me');
  expect(missing).toMatchObject({ status: 404, replayed: false });
  const reg = await api('POST', '/file', { file_name: 'later.png', dir_id: dirId });
  const upload = reg.body.upload as { url: string; headers: Record<string, string> };
  await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: PNG });
  expect(await api('POST', '/ffmpeg/process', body, 'retry-me')).toMatchObject({ status: 200, replayed: false });
  expect(await api('POST', '/ffmpeg/process', body, 'retry-me')).toMatchObject({ status: 200, replayed: true });
  expect(await charges(1)).toBe(1);
});

test('a structured-field string key ("...") is the same key as the bare token', async () => {
  const { api } = await newUser();
  const dir = await api('POST', '/directory', {}, '"abc-123"');
  expect(await api('POST', '/directory', {}, 'abc-123')).toEqual({ ...dir, replayed: true });
});
