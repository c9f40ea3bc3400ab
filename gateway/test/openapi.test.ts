// docs/openapi.json: generated from the routes (npm run openapi), valid OpenAPI 3.1, and complete:
// every route documented with an id, a summary and its responses.
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readTaskRequest } from '@media/media';
import { documentText, openapiDocument } from '../src/openapi-document.js';

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  deprecated?: boolean;
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: object; example?: unknown }> };
  responses?: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: object }> }>;
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };

let doc: Doc;
beforeAll(async () => {
  doc = (await openapiDocument()) as unknown as Doc;
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

test('the committed docs/openapi.json is what the routes generate (else run: npm run openapi)', async () => {
  const committed = await readFile(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
  expect(committed).toBe(documentText(doc));
});

test('it is valid OpenAPI 3.1 for a standard validator', async () => {
  const validator = new Validator();
  const result = await validator.validate(doc as never);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

test('every path of the interface is there, each operation with an id, a summary, a tag and responses', () => {
  const found = operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`);
  expect(found.sort()).toEqual(
    [
      'POST /file',
      'GET /file/{dirId}/{fileName}',
      'DELETE /file/{dirId}/{fileName}',
      'GET /file/download/{dirId}/{fileName}',
      'POST /directory',
      'GET /directory',
      'GET /directory/{dirId}',
      'POST /ffmpeg/process',
      'POST /ffmpeg/process/async',
      'GET /job/{jobId}',
      'DELETE /job/{jobId}',
      'GET /jobs',
      'POST /ffprobe/analyze',
      'GET /account/usage',
      'GET /account',
      'POST /ffmpeg/run',
      'POST /ai/ffmpeg/process',
      'POST /ai/ffmpeg/process/async',
      'POST /ai/ffprobe/analyze',
    ].sort(),
  );
  const ids = new Set<string>();
  for (const { path, method, op } of operations()) {
    const where = `${method} ${path}`;
    // A route added without a schema has none of these.
    expect({ where, id: typeof op.operationId, summary: typeof op.summary, tags: op.tags?.length }).toEqual({
      where,
      id: 'string',
      summary: 'string',
      tags: 1,
    });
    ids.add(op.operationId!);
    const responses = Object.entries(op.responses ?? {});
    expect(responses.length).toBeGreaterThan(0);
    for (const [status, r] of responses) {
      expect({ where, status, requestId: Boolean(r.headers?.['X-Request-Id']) }).toEqual({ where, status, requestId: true });
      if (Number(status) >= 400) expect(r.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
      if (status === '429' || status === '503') expect(r.headers?.['Retry-After']).toBeDefined();
    }
  }
  expect(ids.size).toBe(operations().length);
});

test('the key is required everywhere but on the retired and reserved paths, which are marked', () => {
  for (const { path, op } of operations()) {
    const retired = path === '/ffmpeg/run' || path.startsWith('/ai/');
    expect({ path, security: op.security }).toEqual({ path, security: retired ? [] : [{ apiKey: [] }] });
    if (!retired) expect(Object.keys(op.responses!)).toEqual(expect.arrayContaining(['401', '403', '429']));
  }
  expect(doc.paths['/ffmpeg/run']!.post!.deprecated).toBe(true);
  expect(Object.keys(doc.paths['/ffmpeg/run']!.post!.responses!)).toEqual(['410']);
  for (const path of ['/ai/ffmpeg/process', '/ai/ffmpeg/process/async', '/ai/ffprobe/analyze'])
    expect(Object.keys(doc.paths[path]!.post!.responses!)).toEqual(['501']);
});

test('each request example fits its own schema, and the task examples are tasks the service reads', () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  let examples = 0;
  for (const { path, method, op } of operations()) {
    const body = op.requestBody?.content['application/json'];
    if (!body || body.example === undefined) continue;
    examples++;
    const validate = ajv.compile(body.schema);
    expect({ where: `${method} ${path}`, valid: validate(body.example), errors: validate.errors }).toEqual({
      where: `${method} ${path}`,
      valid: true,
      errors: null,
    });
    if (path.startsWith('/ffmpeg/process')) expect(() => readTaskRequest(body.example, { allowWebhook: true })).not.toThrow();
  }
  expect(examples).toBeGreaterThanOrEqual(5);
});
