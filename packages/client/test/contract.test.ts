// The typed client against the real gateway (a stack over HTTP): every endpoint of the interface
// called through it, and every answer checked against docs/openapi.json's schema for its
// operation and status, so the document, the client and the gateway agree.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MediaApiError, MediaClient, type Task } from '@media/client';
import { downloadTo, uploadFile } from '@media/client/node';
import { startTestStack, type TestStack } from '@media/stack/testing';

type Schema = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>> };

let stack: TestStack;
let client: MediaClient;
let dir: string;
const seen: { method: string; path: string; status: number; type: string; body: string }[] = [];

/** Records every answer of the gateway (signed URLs, which are the store's, are not API answers). */
const recording: typeof fetch = async (input, init) => {
  const { method, url } = input instanceof Request ? input : new Request(input, init);
  const res = await fetch(input, init);
  const { origin, pathname } = new URL(url);
  if (origin === new URL(stack.gatewayUrl).origin)
    seen.push({
      method: method.toLowerCase(),
      path: pathname,
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      body: await res.clone().text(),
    });
  return res;
};

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-contract-'));
  stack = await startTestStack();
  const { key } = await stack.newAccount();
  client = new MediaClient({ baseUrl: stack.gatewayUrl, apiKey: key, fetch: recording });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

test('every endpoint through the client, as a user strings them together', async () => {
  expect(await client.account()).toMatchObject({ ok: true, plan: 'pay-as-you-go' });

  const { directory } = await client.createDirectory(3600);
  expect(directory?.ttl).toBe(3600);
  await writeFile(join(dir, 'in.png'), PNG);
  const progress: number[] = [];
  const registered = await uploadFile(client, join(dir, 'in.png'), { dirId: directory!.id, onProgress: (p) => progress.push(p.loaded) });
  expect(registered.file?.file_path).toBe(`${directory!.id}/in.png`);
  expect(progress.at(-1)).toBe(PNG.length);
  expect((await client.listDirectories()).directories?.map((d) => d.id)).toContain(directory!.id);
  expect((await client.listFiles(directory!.id)).files?.map((f) => f.file_name)).toEqual(['in.png']);
  expect((await client.fileInfo(directory!.id, 'in.png')).file_info).toMatchObject({ file_size: PNG.length, file_type: 'image/png' });
  const { download } = await client.downloadUrl(directory!.id, 'in.png');
  expect(await downloadTo(download!.url!, join(dir, 'back.png'))).toBe(PNG.length);
  expect(await readFile(join(dir, 'back.png'))).toEqual(PNG);

  const task: Task = { inputs: [{ file_path: registered.file!.file_path! }], outputs: [{ file: 'out.jpg' }] };
  const sync = await client.process(task);
  expect(sync.result?.[0]).toMatchObject({ file_name: 'out.jpg', size_bytes: expect.any(Number) });
  const bytes = await downloadTo(sync.result![0]!.download_url!, join(dir, 'out.jpg'));
  expect(bytes).toBe(sync.result![0]!.size_bytes);

  const submitted = await client.submit({ ...task, outputs: [{ file: 'out2.jpg' }] });
  expect(submitted.status).toBe('pending');
  const states: string[] = [];
  const done = await client.waitForJob(submitted.job_id!, { intervalMs: 50, onProgress: (j) => states.push(j.status!) });
  expect(done).toMatchObject({ status: 'completed', result: [{ file_name: 'out2.jpg' }] });
  expect((await client.jobs({ limit: 10 })).pagination?.total).toBe(2);
  // A finished job cannot be cancelled: the typed error carries the status, the sentence, the request id.
  const refused = await client.cancel(submitted.job_id!).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(MediaApiError);
  expect(refused).toMatchObject({
    status: 409,
    kind: 'conflict',
    error: "Cannot cancel job in 'completed' status. Only pending jobs can be cancelled.",
    requestId: expect.stringMatching(/^req_/),
  });

  const probed = await client.probe(registered.file!.file_path!);
  expect(probed.result).toHaveProperty('streams');

  // Charges reach Billing as events, moments after the answers that made them.
  let rows = await client.usageRows();
  for (let i = 0; i < 100 && rows.length < 3; i++) {
    await new Promise((r) => setTimeout(r, 50));
    rows = await client.usageRows();
  }
  expect(rows).toHaveLength(3);
  const csv = await client.usageCsv();
  expect(csv.trim().split('\n')).toHaveLength(4);

  expect(await client.deleteFile(directory!.id, 'in.png')).toMatchObject({ deleted: { file_path: registered.file!.file_path } });
  await expect(client.fileInfo(directory!.id, 'in.png')).rejects.toMatchObject({ status: 404, error: 'File not found in directory' });

  // The retired and reserved endpoints, through the typed paths.
  expect((await client.api.POST('/ffmpeg/run')).response.status).toBe(410);
  for (const path of ['/ai/ffmpeg/process', '/ai/ffmpeg/process/async', '/ai/ffprobe/analyze'] as const)
    expect((await client.api.POST(path)).response.status).toBe(501);
}, 60_000);

test("every answer the client received fits the document's schema for its operation and status", async () => {
  const doc = JSON.parse(await readFile(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as Doc & Schema;
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ ...doc, $id: 'openapi' });
  const template = (path: string) => Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
  const operations = new Set<string>();
  expect(seen.length).toBeGreaterThan(15);
  for (const answer of seen) {
    const path = template(answer.path);
    const op = path ? doc.paths[path]?.[answer.method] : undefined;
    expect({ answer: `${answer.method} ${answer.path}`, documented: Boolean(op) }).toEqual({
      answer: `${answer.method} ${answer.path}`,
      documented: true,
    });
    const response = op!.responses[String(answer.status)];
    expect({ answer: `${answer.method} ${answer.path} ${answer.status}`, documented: Boolean(response) }).toEqual({
      answer: `${answer.method} ${answer.path} ${answer.status}`,
      documented: true,
    });
    operations.add(`${answer.method} ${path}`);
    if (!answer.type.startsWith('application/json')) continue;
    const pointer = `openapi#/paths/${path!.replace(/~/g, '~0').replace(/\//g, '~1')}/${answer.method}/responses/${answer.status}/content/application~1json/schema`;
    const validate = ajv.getSchema(pointer)!;
    const ok = validate(JSON.parse(answer.body));
    expect({ answer: `${answer.method} ${answer.path} ${answer.status}`, errors: ok ? null : validate.errors }).toEqual({
      answer: `${answer.method} ${answer.path} ${answer.status}`,
      errors: null,
    });
  }
  // Every operation of the document was called.
  const all = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m} ${p}`));
  expect(all.filter((o) => !operations.has(o))).toEqual([]);
});
