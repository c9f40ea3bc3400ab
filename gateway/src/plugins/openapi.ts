// The OpenAPI 3.1 document, generated from the routes' own schemas by @fastify/swagger (which
// adds no route: the document is served by the docs listener, docs-server.ts). What every
// operation shares (the key, the response headers) is added here once, not in each route.
import swagger from '@fastify/swagger';
import fp from 'fastify-plugin';
import type { OpenAPIV3_1 } from 'openapi-types';
import { IDEMPOTENCY_KEY_MAX_CHARS, RATE_LIMIT_PER_MINUTE } from '@media/platform';
import { errorSchema } from '../routes/schemas.js';
import { publishable } from './openapi-publish.js';

/** Where `npm start` serves the API; the docs listener puts the running gateway's URL here. */
export const DEFAULT_SERVER = 'http://localhost:8080';

/** Routes every caller may call without a key (retired and reserved endpoints). */
export const PUBLIC_TAGS = new Set(['Retired']);

const header = (description: string, type: 'string' | 'integer' = 'string'): OpenAPIV3_1.HeaderObject => ({
  description,
  schema: { type },
});

const HEADERS: Record<string, OpenAPIV3_1.HeaderObject> = {
  RequestId: header('The id of this request (req_...): quote it when asking about a request. On every response.'),
  RateLimitLimit: header(`Requests a minute allowed for the key (${RATE_LIMIT_PER_MINUTE} by default).`, 'integer'),
  RateLimitRemaining: header('Requests left for the key in the current minute.', 'integer'),
  RateLimitReset: header('Seconds until the current minute window ends.', 'integer'),
  RetryAfter: header('Seconds to wait before resending the same request.', 'integer'),
  IdempotentReplayed: header('"true" when this is the stored answer of an earlier request with the same Idempotency-Key.'),
};

const IDEMPOTENCY_KEY: OpenAPIV3_1.ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to send again: within 24 hours the same key with the same request gets the first ' +
    'successful answer again (Idempotent-Replayed: true) without doing the work or charging twice. Per account; ' +
    '409 while the first is still being answered, or if the key was used with another request.',
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_CHARS, pattern: '^[\\x21-\\x7e]+$' },
  example: '2f1c5a9e-8d4b-4f7e-9a63-1b0c2d3e4f50',
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` }) as unknown as OpenAPIV3_1.HeaderObject;

type Operation = OpenAPIV3_1.OperationObject;

/** Adds the key requirement, Idempotency-Key and the shared response headers to one operation. */
function decorate(op: Operation, method: string): void {
  const isPublic = (op.tags ?? []).some((t) => PUBLIC_TAGS.has(t));
  op.security = isPublic ? [] : [{ apiKey: [] }];
  // Every POST of the interface honours Idempotency-Key (plugins/idempotency.ts).
  const idempotent = method === 'post' && !isPublic;
  if (idempotent) {
    op.parameters = [...(op.parameters ?? []), IDEMPOTENCY_KEY];
    op.responses = {
      ...op.responses,
      409: {
        description:
          'Conflict: see the sentence. With Idempotency-Key: the first request with the key is still being answered, ' +
          'or the key was used with another request.',
      },
    };
  }
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const r = response as OpenAPIV3_1.ResponseObject;
    // Every error has the one shape: named once instead of repeated in each response.
    if (Number(status) >= 400) r.content = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
    const headers: Record<string, OpenAPIV3_1.HeaderObject> = { ...(r.headers ?? {}), 'X-Request-Id': ref('RequestId') };
    // Counted requests carry the key's window; those refused before counting (401) do not.
    if (!isPublic && status !== '401') {
      headers['X-RateLimit-Limit'] = ref('RateLimitLimit');
      headers['X-RateLimit-Remaining'] = ref('RateLimitRemaining');
      headers['X-RateLimit-Reset'] = ref('RateLimitReset');
    }
    if (status === '429' || status === '503') headers['Retry-After'] = ref('RetryAfter');
    if (idempotent && status.startsWith('2')) headers['Idempotent-Replayed'] = ref('IdempotentReplayed');
    r.headers = headers;
  }
}

function transformObject(doc: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = item?.[method];
      if (op) decorate(op, method);
    }
  }
  const schemas = { ...doc.components?.schemas, Error: errorSchema as unknown as OpenAPIV3_1.SchemaObject };
  doc.components = { ...doc.components, schemas, headers: HEADERS };
  return publishable(doc);
}

const DESCRIPTION = `FFmpeg and ffprobe behind a JSON API: upload files into expiring directories through signed URLs,
run FFmpeg tasks synchronously or as queued jobs (with Standard Webhooks), probe media, and read
usage billed in GB-seconds. Errors are always \`{"ok": false, "error": "<sentence>"}\`; match on the
status, not the text. Guides: docs/api/ in the repository.`;

export const openapiPlugin = fp(async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Media processing API', version: '1', description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
      servers: [{ url: DEFAULT_SERVER, description: 'npm start' }],
      tags: [
        { name: 'Files', description: 'Register uploads, read, download and delete files.' },
        { name: 'Directories', description: 'Expiring directories that hold files and outputs.' },
        { name: 'Processing', description: 'Run an FFmpeg task and wait for its result.' },
        { name: 'Jobs', description: 'Queued FFmpeg tasks: submit, read, cancel, list.' },
        { name: 'Probe', description: 'ffprobe a file or URL.' },
        { name: 'Account', description: 'The account, its limits and its usage.' },
        { name: 'Retired', description: 'Endpoints that are retired or not offered; they always answer the same error.' },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'basic',
            description:
              'Authorization: Basic <API_KEY> (the key as the console shows it), Basic <base64 of the key>, or HTTP Basic ' +
              'credentials with the key as user name and an empty password.',
          },
        },
      },
    },
    transformObject: (doc) => ('openapiObject' in doc ? transformObject(doc.openapiObject as OpenAPIV3_1.Document) : doc.swaggerObject),
  });
});
