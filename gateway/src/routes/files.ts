// POST /file, GET|DELETE /file/{dirId}/{fileName}, GET /file/download/{dirId}/{fileName}.
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { Client } from '@connectrpc/connect';
import type { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { DOWNLOAD_URL_TTL_SEC, isoFromTimestamp } from '@media/platform';
import type { RouteFlags } from '../plugins/body.js';
import { rpcOptions } from '../plugins/request-id.js';
import { noQuery, nullable } from './schemas.js';

const fileParams = {
  type: 'object',
  required: ['dirId', 'fileName'],
  properties: { dirId: { type: 'string' }, fileName: { type: 'string' } },
} as const;

const registerBody = {
  type: 'object',
  additionalProperties: false,
  required: ['file_name'],
  properties: { file_name: { type: 'string' }, dir_id: { type: 'string' } },
} as const;

const registerResponse = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    file: {
      type: 'object',
      properties: {
        dir_id: { type: 'string' },
        file_name: { type: 'string' },
        file_path: { type: 'string' },
        added_on: { type: 'string' },
      },
    },
    upload: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        method: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        expiresInSeconds: { type: 'integer' },
      },
    },
  },
} as const;

const infoResponse = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    file_info: {
      type: 'object',
      properties: { file_path: { type: 'string' }, file_type: nullable('string'), file_size: { type: 'integer' } },
    },
  },
} as const;

const deleteResponse = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, deleted: { type: 'object', properties: { file_path: { type: 'string' } } } },
} as const;

const downloadResponse = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    download: {
      type: 'object',
      properties: {
        url: { type: 'string' },
        method: { type: 'string' },
        expiresInSeconds: { type: 'integer' },
        file_path: { type: 'string' },
        file_size: { type: 'integer' },
        file_type: nullable('string'),
      },
    },
  },
} as const;

const bodyRequired: RouteFlags = { bodyRequired: true };

export const fileRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { storage: Client<typeof StorageService> } }> = async (
  app,
  { storage },
) => {
  app.post(
    '/file',
    { config: bodyRequired, schema: { querystring: noQuery, body: registerBody, response: { 200: registerResponse } } },
    async (req) => {
      const { accountId } = req.principal;
      const res = await storage.registerFile({ accountId, fileName: req.body.file_name, dirId: req.body.dir_id }, rpcOptions(req));
      const file = res.file!;
      const upload = res.upload!;
      return {
        ok: true,
        file: { dir_id: file.dirId, file_name: file.fileName, file_path: file.filePath, added_on: isoFromTimestamp(file.addedOn)! },
        upload: { url: upload.url, method: upload.method, headers: upload.headers, expiresInSeconds: upload.expiresInSeconds },
      };
    },
  );

  app.get(
    '/file/download/:dirId/:fileName',
    { schema: { params: fileParams, querystring: noQuery, response: { 200: downloadResponse } } },
    async (req) => {
      const file = { accountId: req.principal.accountId, ...req.params };
      const { download } = await storage.getDownload({ file, expiresInSeconds: DOWNLOAD_URL_TTL_SEC }, rpcOptions(req));
      return {
        ok: true,
        download: {
          url: download!.url,
          method: download!.method,
          expiresInSeconds: download!.expiresInSeconds,
          file_path: download!.filePath,
          file_size: Number(download!.fileSize),
          file_type: download!.fileType ?? null,
        },
      };
    },
  );

  app.get(
    '/file/:dirId/:fileName',
    { schema: { params: fileParams, querystring: noQuery, response: { 200: infoResponse } } },
    async (req) => {
      const { fileInfo } = await storage.getFileInfo({ file: { accountId: req.principal.accountId, ...req.params } }, rpcOptions(req));
      return {
        ok: true,
        file_info: { file_path: fileInfo!.filePath, file_type: fileInfo!.fileType ?? null, file_size: Number(fileInfo!.fileSize) },
      };
    },
  );

  app.delete(
    '/file/:dirId/:fileName',
    { schema: { params: fileParams, querystring: noQuery, response: { 200: deleteResponse } } },
    async (req) => {
      const res = await storage.deleteFile({ file: { accountId: req.principal.accountId, ...req.params } }, rpcOptions(req));
      return { ok: true, deleted: { file_path: res.filePath } };
    },
  );
};
