// The async endpoint's body rules and GET /jobs' query rules, which the gateway answers before
// Jobs is asked: the fast level (build() on in-memory services, in-memory.ts). What Jobs decides
// (webhook URLs, missing files, the account limit, listing) is tested on a stack in jobs.test.ts.
import { buildInMemoryGateway, type InMemoryGateway } from './in-memory.js';

let gateway: InMemoryGateway;
beforeAll(async () => {
  gateway = await buildInMemoryGateway();
});
afterAll(() => gateway?.close());

async function api(method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await gateway.app.inject({
    method,
    url,
    headers: { authorization: gateway.authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined };
}

/** The RPCs made to services other than Auth since `from`. */
const servicesAsked = (from: number) => gateway.calls.slice(from).filter((c) => !c.startsWith('media.auth.'));

const thumb = { task: { inputs: [{ file_path: 'dir_abc/in.mp4' }], outputs: [{ file: 'thumb.png', options: ['-frames:v', '1'] }] } };

test('POST /ffmpeg/process/async: no task object, an unknown field -> 400, Jobs not asked', async () => {
  const from = gateway.calls.length;
  expect(await api('POST', '/ffmpeg/process/async', {})).toMatchObject({
    status: 400,
    body: { error: 'Task object is required in request body' },
  });
  expect(await api('POST', '/ffmpeg/process/async', { ...thumb, extra: 1 })).toMatchObject({ status: 400 });
  expect(servicesAsked(from)).toEqual([]);
});

test('GET /jobs: invalid values -> 400 naming the rule, Jobs not asked', async () => {
  const from = gateway.calls.length;
  expect(await api('GET', '/jobs?offset=9007199254740992')).toMatchObject({
    status: 400,
    body: { ok: false, error: 'offset must be a whole number from 0 to 9007199254740991' },
  });
  for (const [q, error] of [
    ['status=bogus', "status 'bogus' is not one of pending, processing, completed, failed, cancelled"],
    ['status=', 'status must name at least one of pending, processing, completed, failed, cancelled'],
    ['limit=0', 'limit must be a whole number from 1 to 100'],
    ['limit=101', 'limit must be a whole number from 1 to 100'],
    ['limit=abc', 'limit must be a whole number from 1 to 100'],
    ['offset=-1', 'offset must be a whole number from 0 to 9007199254740991'],
    ['sort=newest', 'sort must be created_at_desc or created_at_asc'],
    ['page=2', "Unknown field 'page' in query string"],
  ]) {
    expect(await api('GET', `/jobs?${q}`)).toMatchObject({ status: 400, body: { ok: false, error } });
  }
  expect(servicesAsked(from)).toEqual([]);
});
