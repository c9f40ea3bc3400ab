// Traces as an operator sees them: `npm start` with OTEL_EXPORTER_OTLP_ENDPOINT set exports to an
// OTLP/HTTP receiver run by this test (loopback). One stack sends OTLP/JSON, which the test reads
// span by span: a sync job is one trace from the gateway's request through the Connect call to
// Jobs down to ffmpeg, and an async job's later run and webhook attempt continue the trace of the
// request that submitted it; log lines carry the trace id. A second stack keeps the SDK's default
// protocol (protobuf), as an operator who sets only the endpoint gets it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnStack, type Spawned } from '@media/testkit';
import { accountWithClip, webhookReceiver } from './spawned-account.js';

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}
const SERVER = 2;
const CLIENT = 3;

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
const plainValue = (v: AnyValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const attributesOf = (list: KeyValue[] = []) => Object.fromEntries(list.map((kv) => [kv.key, plainValue(kv.value)]));

/** An OTLP/HTTP trace receiver: JSON requests decoded into spans, protobuf ones kept as bytes. */
async function startReceiver() {
  const spans: ReceivedSpan[] = [];
  const protobuf: Buffer[] = [];
  const paths = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.add(`${req.method} ${req.url}`);
      const body = Buffer.concat(chunks);
      if (String(req.headers['content-type']).startsWith('application/x-protobuf')) {
        protobuf.push(body);
        return void res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
      const request = JSON.parse(body.toString()) as {
        resourceSpans: {
          resource: { attributes: KeyValue[] };
          scopeSpans: { spans: (Omit<ReceivedSpan, 'attributes' | 'service'> & { attributes: KeyValue[] })[] }[];
        }[];
      };
      for (const rs of request.resourceSpans) {
        const service = String(attributesOf(rs.resource.attributes)['service.name']);
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            spans.push({ ...s, parentSpanId: s.parentSpanId ?? '', service, attributes: attributesOf(s.attributes) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    protobuf,
    paths,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

async function waitFor<T>(what: string, find: () => T | undefined, ms = 15_000): Promise<T> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    const found = find();
    if (found !== undefined) return found;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('OpenTelemetry traces from npm start', () => {
  let dir: string;
  let json: Receiver;
  let proto: Receiver;
  let stack: Spawned;
  let defaultStack: Spawned;
  let hooks: Awaited<ReturnType<typeof webhookReceiver>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'media-traces-'));
    [json, proto] = await Promise.all([startReceiver(), startReceiver()]);
    hooks = await webhookReceiver(dir);
    const traced = { OTEL_BSP_SCHEDULE_DELAY: '100' };
    [stack, defaultStack] = await Promise.all([
      spawnStack({
        ...traced,
        OTEL_EXPORTER_OTLP_ENDPOINT: json.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        LOG_LEVEL: 'info',
        ...hooks.env,
      }),
      spawnStack({ ...traced, OTEL_EXPORTER_OTLP_ENDPOINT: proto.url }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    await defaultStack?.stop();
    await hooks?.stop();
    await json?.stop();
    await proto?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A caller on `on` with one clip uploaded, and the clip as a task's inputs. */
  async function user(on: Spawned) {
    const { call, dirId } = await accountWithClip(on, 'testsrc=duration=1:size=160x120:rate=10');
    const api = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
      const res = await call(on.baseUrl, method, path, body, headers);
      return { ...res, requestId: String(res.headers.get('x-request-id')) };
    };
    return { api, inputs: [{ file_path: `${dirId}/clip.mp4` }] };
  }

  const inTrace = (traceId: string) => json.spans.filter((s) => s.traceId === traceId);
  const named = (spans: ReceivedSpan[], name: string, kind?: number) =>
    spans.filter((s) => s.name === name && (kind === undefined || s.kind === kind));
  /** The span's parents up to the trace's root, nearest first (every one of them received). */
  function ancestors(span: ReceivedSpan): ReceivedSpan[] {
    const chain: ReceivedSpan[] = [];
    for (let at = span; at.parentSpanId; ) {
      const parent = json.spans.find((s) => s.traceId === at.traceId && s.spanId === at.parentSpanId);
      if (!parent) throw new Error(`span ${at.name} has a parent that was never received`);
      chain.push(parent);
      at = parent;
    }
    return chain;
  }
  const rootOf = (requestId: string) => () => json.spans.find((s) => s.attributes['media.request_id'] === requestId);

  test('a sync job is one trace: gateway request -> Connect call -> Jobs -> staging, ffmpeg, storing', async () => {
    const { api: call, inputs } = await user(stack);
    // A client's own trace header is not taken up: the request starts a trace of its own.
    const clientTrace = '0af7651916cd43dd8448eb211c80319c';
    const res = await call(
      'POST',
      '/ffmpeg/process',
      { task: { inputs, outputs: [{ file: 'thumb.png', options: ['-frames:v', '1'] }] } },
      { traceparent: `00-${clientTrace}-b7ad6b7169203331-01` },
    );
    expect(res.status).toBe(200);

    const root = await waitFor('the request span', rootOf(res.requestId));
    expect(root).toMatchObject({ name: 'POST /ffmpeg/process', kind: SERVER, parentSpanId: '', service: 'media-service' });
    expect(root.traceId).not.toBe(clientTrace);
    const ffmpeg = await waitFor('the ffmpeg span', () => named(inTrace(root.traceId), 'ffmpeg')[0]);
    const store = await waitFor('the store span', () => named(inTrace(root.traceId), 'store outputs')[0]);
    const spans = inTrace(root.traceId);
    const rpc = 'media.jobs.v1.JobsService/ProcessSync';
    const [client] = named(spans, rpc, CLIENT);
    const [server] = named(spans, rpc, SERVER);
    expect(client && server).toBeTruthy();
    // gateway request -> (handler) -> Connect client -> Jobs server -> ffmpeg
    const chain = ancestors(ffmpeg);
    expect(chain.map((s) => s.spanId)).toEqual(expect.arrayContaining([server!.spanId, client!.spanId, root.spanId]));
    expect(chain.indexOf(server!)).toBeLessThan(chain.indexOf(client!));
    expect(chain.at(-1)).toBe(root);
    expect(ffmpeg.attributes['media.job_id']).toBe(res.body.request_id);
    expect(ancestors(named(spans, 'stage inputs')[0]!)[0]).toBe(server);
    expect(ancestors(store)[0]).toBe(server);
    // Storing the output is a call to Storage, in the same trace.
    expect(named(spans, 'media.storage.v1.StorageService/StoreLocalFile', SERVER)).toHaveLength(1);

    // The log lines of that request carry its trace id: the gateway's access line and Jobs' own.
    const lines = stack
      .logs()
      .split('\n')
      .filter((l) => l.includes(res.requestId))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = lines.find((l) => l.msg === 'request completed');
    expect(access).toMatchObject({ service: 'gateway', trace_id: root.traceId });
  });

  test("an async job's run, and its webhook attempt, continue the submitting request's trace", async () => {
    const { api: call, inputs } = await user(stack);
    const res = await call('POST', '/ffmpeg/process/async', {
      task: { inputs, outputs: [{ file: 'later.png', options: ['-frames:v', '1'] }] },
      webhook_url: `${hooks.url}/hook`,
    });
    expect(res.status).toBe(202);
    const jobId = String(res.body.job_id);
    await waitFor('the webhook', () => (hooks.delivered.includes(jobId) ? true : undefined));

    const root = await waitFor('the request span', rootOf(res.requestId));
    expect(root).toMatchObject({ name: 'POST /ffmpeg/process/async', parentSpanId: '' });
    const forJob = (name: string) => () => json.spans.find((s) => s.name === name && s.attributes['media.job_id'] === jobId);
    const runSpan = await waitFor('the job run span', forJob('job run'));
    const ffmpeg = await waitFor('the ffmpeg span', forJob('ffmpeg'));
    const attempt = await waitFor('the webhook attempt span', forJob('webhook attempt'));
    for (const s of [runSpan, ffmpeg, attempt]) expect(s.traceId).toBe(root.traceId);
    // The run's parent is Jobs' span of the submission, whose caller is the gateway's request.
    const [submitted] = named(inTrace(root.traceId), 'media.jobs.v1.JobsService/SubmitAsync', SERVER);
    expect(ancestors(runSpan)[0]).toBe(submitted);
    expect(ancestors(runSpan).at(-1)).toBe(root);
    expect(ancestors(ffmpeg)).toContain(runSpan);
    expect(ancestors(attempt)[0]).toBe(runSpan);
    expect(attempt.attributes['media.attempt']).toBe(1);

    // Jobs' log line for the delivery, written long after the request, names the same trace.
    const line = await waitFor(
      'the delivery log line',
      () =>
        stack
          .logs()
          .split('\n')
          .filter((l) => l.includes('webhook delivered') && l.includes(jobId))
          .map((l) => JSON.parse(l) as Record<string, unknown>)[0],
    );
    expect(line).toMatchObject({ service: 'jobs', trace_id: root.traceId });

    // Every trace is an API request's: background calls (the gateway's rate sync with Auth, every
    // 200 ms) and the admin CLI's calls start none.
    const roots = json.spans.filter((s) => !s.parentSpanId).map((s) => s.name);
    expect(roots).toContain('POST /ffmpeg/process/async');
    for (const name of roots) expect(name).toMatch(/^(GET|POST|PUT|DELETE) \//);
  });

  test('with only the endpoint set, spans go out as OTLP protobuf to /v1/traces', async () => {
    const { api: call } = await user(defaultStack);
    const res = await call('GET', '/account');
    expect(res.status).toBe(200);
    // The request id is a string attribute: its bytes appear as they are in the encoded span.
    await waitFor('the request span', () => (proto.protobuf.some((b) => b.includes(res.requestId)) ? true : undefined));
    expect([...proto.paths]).toEqual(['POST /v1/traces']);
    expect(json.paths.size === 0 || [...json.paths].every((p) => p === 'POST /v1/traces')).toBe(true);
  });
});
