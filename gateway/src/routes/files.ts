// POST /file, GET|DELETE /file/{dirId}/{fileName}, GET /file/download/{dirId}/{fileName}.
import { DOWNLOAD_URL_TTL_SEC, isoFromTimestamp } from '@media/platform';
import type { RouteFlags } from '../plugins/body.js';
import { rpcOptions } from '../plugins/request-id.js';
import type { StorageRoutes } from './storage-routes.js';
import { allRequired, authedErrors, noQuery, nullable, okResponse, stringParams } from './schemas.js';

const fileParams = stringParams('dirId', 'fileName');

const registerBody = {
  type: 'object',
  additionalProperties: false,
  required: ['file_name'],
  properties: {
    file_name: { type: 'string', description: '1 to 255 characters; no slash, backslash or control character; not "." or "..".' },
    dir_id: { type: 'string', description: 'The directory to upload into (default: a new one).' },
  },
  examples: [{ file_name: 'input.mp4' }],
} as const;

const registerResponse = okResponse('The registered file and the signed PUT that uploads its bytes (valid 5 minutes).', {
  file: allRequired({
    dir_id: { type: 'string' },
    file_name: { type: 'string' },
    file_path: { type: 'string' },
    added_on: { type: 'string' },
  }),
  upload: allRequired({
    url: { type: 'string' },
    // Storage's value, always PUT (spec); typed as a string, since this route passes Storage's on.
    method: { type: 'string', enum: ['PUT'] as string[] },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    expiresInSeconds: { type: 'integer' },
  }),
});

const infoResponse = okResponse('The size and media type of the file.', {
  file_info: allRequired({ file_path: { type: 'string' }, file_type: nullable('string'), file_size: { type: 'integer' } }),
});

const deleteResponse = okResponse('The file was deleted.', { deleted: allRequired({ file_path: { type: 'string' } }) });

const downloadResponse = okResponse('A signed GET URL for the file (valid 5 minutes).', {
  download: allRequired({
    url: { type: 'string' },
    method: { type: 'string', enum: ['GET'] as string[] }, // Storage's, always GET (as PUT above)
    expiresInSeconds: { type: 'integer' },
    file_path: { type: 'string' },
    file_size: { type: 'integer' },
    file_type: nullable('string'),
  }),
});

const postFlags: RouteFlags = { bodyRequired: true, idempotent: true };

export const fileRoutes: StorageRoutes = async (app, { storage }) => {
  const tags = ['Files'];
  app.post(
    '/file',
    {
      config: postFlags,
      schema: {
        tags,
        operationId: 'registerFile',
        summary: 'Register a file and get its upload URL',
        description: 'Then PUT the bytes to upload.url with upload.headers. A file may be up to 5 GB.',
        querystring: noQuery,
        body: registerBody,
        response: { 200: registerResponse, ...authedErrors(404, 409) },
      },
    },
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
    {
      schema: {
        tags,
        operationId: 'getDownload',
        summary: 'Get a download URL for a file',
        params: fileParams,
        querystring: noQuery,
        response: { 200: downloadResponse, ...authedErrors(404) },
      },
    },
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
    {
      schema: {
        tags,
        operationId: 'getFileInfo',
        summary: 'Read the size and type of a file',
        params: fileParams,
        querystring: noQuery,
        response: { 200: infoResponse, ...authedErrors(404) },
      },
    },
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
    {
      schema: {
        tags,
        operationId: 'deleteFile',
        summary: 'Delete a file',
        params: fileParams,
        querystring: noQuery,
        response: { 200: deleteResponse, ...authedErrors(404) },
      },
    },
    async (req) => {
      const res = await storage.deleteFile({ file: { accountId: req.principal.accountId, ...req.params } }, rpcOptions(req));
      return { ok: true, deleted: { file_path: res.filePath } };
    },
  );
};
