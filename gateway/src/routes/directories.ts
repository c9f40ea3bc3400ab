// POST /directory, GET /directory, GET /directory/{dirId}.
import { isoFromTimestamp, MAX_TTL_SEC } from '@media/platform';
import type { RouteFlags } from '../plugins/body.js';
import { rpcOptions } from '../plugins/request-id.js';
import type { StorageRoutes } from './storage-routes.js';
import { allRequired, authedErrors, noQuery, okResponse, stringParams } from './schemas.js';

const TTL_RULE = `ttl must be a whole number of seconds from 1 to ${MAX_TTL_SEC}`;

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ttl: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TTL_SEC,
      errorMessage: TTL_RULE,
      description: 'Lifetime in seconds (default: one day); the directory and its files are deleted after it.',
    },
  },
  examples: [{ ttl: 3600 }],
} as const;

const createResponse = okResponse('The new directory.', {
  directory: allRequired({ id: { type: 'string' }, ttl: { type: 'integer' } }),
});

const listResponse = okResponse("The account's directories that have not expired.", {
  directories: { type: 'array', items: allRequired({ id: { type: 'string' }, ttl: { type: 'integer' }, added_on: { type: 'string' } }) },
});

const filesResponse = okResponse('The files in the directory.', {
  files: { type: 'array', items: allRequired({ file_name: { type: 'string' }, added_on: { type: 'string' } }) },
});

export const directoryRoutes: StorageRoutes = async (app, { storage }) => {
  const tags = ['Directories'];
  app.post(
    '/directory',
    {
      config: { idempotent: true } satisfies RouteFlags,
      schema: {
        tags,
        operationId: 'createDirectory',
        summary: 'Create a directory',
        querystring: noQuery,
        body: createBody,
        response: { 200: createResponse, ...authedErrors() },
      },
    },
    async (req) => {
      const { directory } = await storage.createDirectory({ accountId: req.principal.accountId, ttl: req.body.ttl }, rpcOptions(req));
      return { ok: true, directory: { id: directory!.id, ttl: directory!.ttl } };
    },
  );

  app.get(
    '/directory',
    {
      schema: {
        tags,
        operationId: 'listDirectories',
        summary: 'List directories',
        querystring: noQuery,
        response: { 200: listResponse, ...authedErrors() },
      },
    },
    async (req) => {
      const { directories } = await storage.listDirectories({ accountId: req.principal.accountId }, rpcOptions(req));
      return { ok: true, directories: directories.map((d) => ({ id: d.id, ttl: d.ttl, added_on: isoFromTimestamp(d.addedOn)! })) };
    },
  );

  app.get(
    '/directory/:dirId',
    {
      schema: {
        tags,
        operationId: 'listFiles',
        summary: 'List the files of a directory',
        params: stringParams('dirId'),
        querystring: noQuery,
        response: { 200: filesResponse, ...authedErrors(404) },
      },
    },
    async (req) => {
      const { files } = await storage.listFiles({ accountId: req.principal.accountId, dirId: req.params.dirId }, rpcOptions(req));
      return { ok: true, files: files.map((f) => ({ file_name: f.fileName, added_on: isoFromTimestamp(f.addedOn)! })) };
    },
  );
};
