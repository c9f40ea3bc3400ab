// POST /directory, GET /directory, GET /directory/{dirId}.
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { Client } from '@connectrpc/connect';
import type { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { isoFromTimestamp, MAX_TTL_SEC } from '@media/platform';
import { rpcOptions } from '../plugins/request-id.js';
import { noQuery } from './schemas.js';

const TTL_RULE = `ttl must be a whole number of seconds from 1 to ${MAX_TTL_SEC}`;

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: { ttl: { type: 'integer', minimum: 1, maximum: MAX_TTL_SEC, errorMessage: TTL_RULE } },
} as const;

const createResponse = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, directory: { type: 'object', properties: { id: { type: 'string' }, ttl: { type: 'integer' } } } },
} as const;

const listResponse = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    directories: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'string' }, ttl: { type: 'integer' }, added_on: { type: 'string' } } },
    },
  },
} as const;

const filesResponse = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    files: { type: 'array', items: { type: 'object', properties: { file_name: { type: 'string' }, added_on: { type: 'string' } } } },
  },
} as const;

export const directoryRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { storage: Client<typeof StorageService> } }> = async (
  app,
  { storage },
) => {
  app.post('/directory', { schema: { querystring: noQuery, body: createBody, response: { 200: createResponse } } }, async (req) => {
    const { directory } = await storage.createDirectory({ accountId: req.principal.accountId, ttl: req.body.ttl }, rpcOptions(req));
    return { ok: true, directory: { id: directory!.id, ttl: directory!.ttl } };
  });

  app.get('/directory', { schema: { querystring: noQuery, response: { 200: listResponse } } }, async (req) => {
    const { directories } = await storage.listDirectories({ accountId: req.principal.accountId }, rpcOptions(req));
    return { ok: true, directories: directories.map((d) => ({ id: d.id, ttl: d.ttl, added_on: isoFromTimestamp(d.addedOn)! })) };
  });

  app.get(
    '/directory/:dirId',
    {
      schema: {
        params: { type: 'object', required: ['dirId'], properties: { dirId: { type: 'string' } } },
        querystring: noQuery,
        response: { 200: filesResponse },
      },
    },
    async (req) => {
      const { files } = await storage.listFiles({ accountId: req.principal.accountId, dirId: req.params.dirId }, rpcOptions(req));
      return { ok: true, files: files.map((f) => ({ file_name: f.fileName, added_on: isoFromTimestamp(f.addedOn)! })) };
    },
  );
};
