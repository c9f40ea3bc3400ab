// Body, auth and error-shape rules the gateway applies before any backing service is asked: the
// fast level (build() on in-memory services, in-memory.ts). Each refusal is the interface's status
// and error shape with X-Request-Id, and reaches no service but Auth: nothing is registered,
// admitted or charged. What the services decide (names, 404s, charges) is tested on a stack.
import { buildInMemoryGateway, type InMemoryGateway } from './in-memory.js';

let gateway: InMemoryGateway;
beforeAll(async () => {
  gateway = await buildInMemoryGateway();
});
afterAll(() => gateway?.close());

async function send(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await gateway.app.inject({
    method,
    url,
    headers: { authorization: gateway.authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    payload: body === undefined ? undefined : Buffer.isBuffer(body) ? body : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, requestId: res.headers['x-request-id'] };
}

/** The RPCs made to services other than Auth since `from`. */
const servicesAsked = (from: number) => gateway.calls.slice(from).filter((c) => !c.startsWith('media.auth.'));

test('POST /file: every body rule -> 400 naming it, before Storage is asked', async () => {
  const cases: [unknown, string][] = [
    [undefined, 'Request body is required'],
    ['', 'Request body is required'],
    ['{not json', 'Invalid JSON in request body'],
    [{ file_name: 'a', extra: 1 }, "Unknown field 'extra' in request body"],
    [{}, "Missing required field 'file_name' in request body"],
    [{ file_name: 5 }, "Field 'file_name' in request body must be a string"],
    [[1, 2], 'The request body must be a JSON object'],
    [{ file_name: 'x'.repeat(300 * 1024) }, 'Request body is larger than 256 KB'],
    // 256,001 bytes: past the limit in decimal units (256,000 pass it: files.test.ts).
    [JSON.stringify({ file_name: 'x'.repeat(256_001 - '{"file_name":""}'.length) }), 'Request body is larger than 256 KB'],
    // JSON.stringify writes half a surrogate pair as a \\ud800 escape: a name no one can type.
    [{ file_name: 't\ud800x' }, 'Text in the request body must be valid Unicode; a \\u escape of half a surrogate pair is not'],
    [{ file_name: 't\udc00x' }, 'Text in the request body must be valid Unicode; a \\u escape of half a surrogate pair is not'],
    // Bytes that are not UTF-8 would reach Storage as U+FFFD: a name the client never sent.
    [
      Buffer.concat([Buffer.from('{"file_name":"caf'), Buffer.from([0xe9]), Buffer.from('.mp4"}')]),
      'Request body must be UTF-8 encoded JSON',
    ],
  ];
  const from = gateway.calls.length;
  for (const [body, error] of cases) {
    const res = await send('POST', '/file', body);
    expect({ body: String(body).slice(0, 40), status: res.status, error: res.body?.error }).toEqual({
      body: String(body).slice(0, 40),
      status: 400,
      error,
    });
    expect(res.requestId).toMatch(/^req_/);
  }
  expect(servicesAsked(from)).toEqual([]);
});

test('POST /directory: unknown field and invalid JSON -> 400', async () => {
  expect((await send('POST', '/directory', { ttl: 60, name: 'x' })).body).toEqual({
    ok: false,
    error: "Unknown field 'name' in request body",
  });
  expect((await send('POST', '/directory', '{"ttl":')).body).toEqual({ ok: false, error: 'Invalid JSON in request body' });
  expect((await send('POST', '/directory', { ttl: 1.5 })).body).toEqual({
    ok: false,
    error: 'ttl must be a whole number of seconds from 1 to 604800',
  });
});

test.each([[0], [-1], [1.5], [604801], ['100'], [null], [true]])('POST /directory: ttl %p -> 400, Storage not asked', async (ttl) => {
  const from = gateway.calls.length;
  const res = await send('POST', '/directory', { ttl });
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ ok: false, error: 'ttl must be a whole number of seconds from 1 to 604800' });
  expect(servicesAsked(from)).toEqual([]);
});

const file = () => 'dir_abc/in.mp4';
test.each([
  ['no body', () => undefined, 'Request body is required'],
  ['no file_path', () => ({}), "Missing required field 'file_path' in request body"],
  ['extra field', () => ({ file_path: file(), task: {} }), "Unknown field 'task' in request body"],
  ['file_path not a string', () => ({ file_path: 5 }), "Field 'file_path' in request body must be a string"],
  ['bad file_path', () => ({ file_path: 'no-slash' }), 'Invalid file_path format. Expected <dir_id>/<file_name>'],
  [
    'http URL',
    () => ({ file_path: 'http://example.com/a.mp4' }),
    "file_path 'http://example.com/a.mp4' must be a public HTTPS URL (https://...)",
  ],
  [
    'unknown section',
    () => ({ file_path: file(), probe: { stream: [] } }),
    expect.stringMatching(/^Unknown field 'stream' in probe: sections are format, streams/),
  ],
  [
    'bad entry',
    () => ({ file_path: file(), probe: { format: ['duration:stream'] } }),
    expect.stringMatching(/^probe\.format\[0\] 'duration:stream' is not an entry name/),
  ],
  [
    'frames without intervals',
    () => ({ file_path: file(), probe: { frames: [] } }),
    expect.stringMatching(/^probe\.frames needs probe\.read_intervals/),
  ],
  [
    'interval over 30 s',
    () => ({ file_path: file(), probe: { frames: [], read_intervals: '0%+31' } }),
    "probe.read_intervals: an interval may span at most 30 seconds or 3000 frames; '0%+31' spans 31 seconds",
  ],
  [
    'interval over 3000 frames',
    () => ({ file_path: file(), probe: { packets: [], read_intervals: '%+#3001' } }),
    "probe.read_intervals: an interval may span at most 30 seconds or 3000 frames; '%+#3001' spans 3001 frames",
  ],
  [
    'open interval',
    () => ({ file_path: file(), probe: { packets: [], read_intervals: '10' } }),
    expect.stringMatching(/^probe\.read_intervals: interval '10' has no end/),
  ],
  [
    'analyzeduration over 60 s',
    () => ({ file_path: file(), probe: { format: [], analyzeduration: 61 } }),
    'probe.analyzeduration may be at most 60 seconds',
  ],
  [
    'probesize over 50 MB',
    () => ({ file_path: file(), probe: { format: [], probesize: 50_000_001 } }),
    'probe.probesize may be at most 50000000 bytes (50 MB)',
  ],
  [
    'count_frames without intervals',
    () => ({ file_path: file(), probe: { streams: [], count_frames: true } }),
    expect.stringMatching(/^probe\.count_frames needs probe\.read_intervals/),
  ],
  [
    'bad select_streams',
    () => ({ file_path: file(), probe: { streams: [], select_streams: 'v -show_data' } }),
    expect.stringMatching(/^probe\.select_streams/),
  ],
])('POST /ffprobe/analyze, %s -> 400, nothing admitted', async (_name, body, error) => {
  const from = gateway.calls.length;
  const res = await send('POST', '/ffprobe/analyze', body());
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ ok: false, error });
  expect(servicesAsked(from)).toEqual([]);
});

test('POST /ffprobe/analyze: invalid JSON -> 400', async () => {
  expect(await send('POST', '/ffprobe/analyze', '{"file_path":')).toMatchObject({
    status: 400,
    body: { ok: false, error: 'Invalid JSON in request body' },
  });
});

test.each([
  ['GET', '/account'],
  ['GET', '/account/usage'],
  ['POST', '/directory'],
  ['GET', '/directory'],
  ['GET', '/directory/dir_abc'],
  ['POST', '/file'],
  ['GET', '/file/dir_abc/a.mp4'],
  ['DELETE', '/file/dir_abc/a.mp4'],
  ['GET', '/file/download/dir_abc/a.mp4'],
  ['POST', '/ffmpeg/process'],
  ['POST', '/ffmpeg/process/async'],
  ['GET', '/job/job_abc'],
  ['DELETE', '/job/job_abc'],
  ['GET', '/jobs'],
  ['POST', '/ffprobe/analyze'],
] as const)(
  '%s %s without a key -> 401 "Authorization Header Required"; with a wrong one -> 401 "Invalid API key"',
  async (method, url) => {
    const from = gateway.calls.length;
    const body = method === 'POST' ? {} : undefined;
    const none = await send(method, url, body, { authorization: '' });
    expect(none).toMatchObject({ status: 401, body: { ok: false, error: 'Authorization Header Required' } });
    expect(none.requestId).toMatch(/^req_/);
    const wrong = await send(method, url, body, { authorization: 'Basic mk_wrong' });
    expect(wrong).toMatchObject({ status: 401, body: { ok: false, error: 'Invalid API key' } });
    expect(servicesAsked(from)).toEqual([]);
  },
);

test.each([
  [undefined, 'Request body is required'],
  [{}, 'Task object is required in request body'],
  [{ task: 'x' }, 'Task object is required in request body'],
])('POST /ffmpeg/process %j -> 400 %s, before Jobs is asked: nothing charged', async (body, error) => {
  // The task's own shape is Jobs' to judge (it plans the task): process.test.ts, on a stack.
  const from = gateway.calls.length;
  const res = await send('POST', '/ffmpeg/process', body);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ ok: false, error });
  expect(servicesAsked(from)).toEqual([]);
});
