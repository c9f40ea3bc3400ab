// Files: upload (a local file, or the bytes of an https:// URL streamed through this process;
// stdio only), the directories and their files, and a fresh download link.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MediaClient } from '@media/client';
import { type ResumeEvent, type ResumeOptions, uploadFile, uploadStream } from '@media/client/node';
import { DESCRIPTIONS } from '../descriptions.js';
import { guarded, ok } from '../results.js';

/** Redirects an https:// upload URL may take, as browsers and fetch allow. */
const MAX_REDIRECTS = 20;

const filePath = z.string().describe('"<dir_id>/<file_name>" as upload_file or a task result gives it');

/**
 * Reads local files and fetches URLs from this process: for the user's own (stdio) server only.
 * With `resume`, a local file goes by tus where the upload URL speaks it, and an upload left
 * unfinished (this server stopped, or `media upload` interrupted) continues from the service's offset.
 */
export function registerUploadTool(
  server: McpServer,
  media: MediaClient,
  resume?: (media: MediaClient) => Promise<ResumeOptions | undefined>,
) {
  server.registerTool(
    'upload_file',
    {
      title: 'Upload a file',
      description: DESCRIPTIONS.upload_file,
      inputSchema: {
        path: z
          .string()
          .optional()
          .describe('a local file (an absolute path is safest: relative ones are read from where the MCP server runs)'),
        url: z.string().optional().describe('a public https:// URL to copy into the service (instead of path)'),
        dir_id: z.string().optional().describe('an existing directory (from an earlier upload); default: a new one'),
        file_name: z.string().optional().describe("the name in the directory (default: the file's or URL's own name)"),
      },
      outputSchema: {
        file_path: z.string(),
        dir_id: z.string(),
        file_name: z.string(),
        size_bytes: z.number(),
        resumed_at_bytes: z
          .number()
          .optional()
          .describe('an interrupted upload of this file was continued: the bytes the service already had'),
      },
      annotations: { openWorldHint: true },
    },
    guarded(async ({ path, url, dir_id, file_name }) => {
      if (Boolean(path) === Boolean(url)) throw new Error('give either path (a local file) or url (an https:// URL), not both or neither');
      if (path) {
        const local = resolve(path);
        const info = await stat(local).catch(() => undefined);
        if (!info?.isFile()) throw new Error(`${path}: no such file (looked for ${local})`);
        const resumable = await resume?.(media);
        let resumedAt: number | undefined;
        const onResume = (e: ResumeEvent) => {
          if (e.kind === 'resumed') resumedAt = e.offset;
        };
        const { file } = await uploadFile(media, local, {
          dirId: dir_id,
          fileName: file_name,
          ...(resumable ? { resume: resumable, onResume } : {}),
        });
        const resumed = resumedAt === undefined ? {} : { resumed_at_bytes: resumedAt };
        return ok({ file_path: file.file_path, dir_id: file.dir_id, file_name: file.file_name, size_bytes: info.size, ...resumed });
      }
      const { body, size, name } = await openUrl(url!);
      const { file } = await uploadStream(media, body, size, { dirId: dir_id, fileName: file_name ?? name });
      return ok({ file_path: file.file_path, dir_id: file.dir_id, file_name: file.file_name, size_bytes: size });
    }),
  );
}

export function registerFileTools(server: McpServer, media: MediaClient) {
  server.registerTool(
    'list_files',
    {
      title: 'List directories or files',
      description: DESCRIPTIONS.list_files,
      inputSchema: { dir_id: z.string().optional().describe('a directory; leave out to list the directories') },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ dir_id }) => {
      if (!dir_id) {
        const { directories } = await media.listDirectories();
        return ok({ directories: directories ?? [] });
      }
      const { files } = await media.listFiles(dir_id);
      return ok({ dir_id, files: (files ?? []).map((f) => ({ file_path: `${dir_id}/${f.file_name}`, added_on: f.added_on })) });
    }),
  );

  server.registerTool(
    'download_link',
    {
      title: 'Get a download link',
      description: DESCRIPTIONS.download_link,
      inputSchema: { file_path: filePath },
      outputSchema: {
        file_path: z.string(),
        download_url: z.string(),
        expires_in_sec: z.number(),
        file_size: z.number(),
        file_type: z.string().nullable(),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ file_path }) => {
      const slash = file_path.indexOf('/');
      if (slash < 1) throw new Error(`${file_path} is not a file_path: expected <dir_id>/<file_name>`);
      const { download } = await media.downloadUrl(file_path.slice(0, slash), file_path.slice(slash + 1));
      return ok({
        file_path: download.file_path,
        download_url: download.url,
        expires_in_sec: download.expiresInSeconds,
        file_size: download.file_size,
        file_type: download.file_type ?? null,
      });
    }),
  );
}

/** Opens an https:// URL for streaming into an upload: its body, its size and a file name from its path. */
async function openUrl(raw: string): Promise<{ body: Readable; size: number; name: string }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${raw} is not a URL`);
  }
  if (url.protocol !== 'https:') throw new Error(`${raw}: only https:// URLs are uploaded`);
  // Redirects followed one by one, each still https (never to http:// on the user's network).
  let res: Response;
  for (let hop = 0; ; hop++) {
    res = await fetch(url, { redirect: 'manual' }).catch((err: Error) => {
      throw new Error(`${raw} could not be fetched: ${err.cause ?? err.message}`);
    });
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    if (location === null) break;
    await res.body?.cancel();
    if (hop === MAX_REDIRECTS) throw new Error(`${raw} redirected more than ${MAX_REDIRECTS} times`);
    url = new URL(location, url);
    if (url.protocol !== 'https:') throw new Error(`${raw} redirected to ${url.protocol}//${url.host}: only https:// URLs are uploaded`);
  }
  if (!res.ok || !res.body) throw new Error(`${raw} answered ${res.status} ${res.statusText}`);
  const size = Number(res.headers.get('content-length'));
  if (!Number.isSafeInteger(size) || size <= 0) {
    await res.body.cancel();
    throw new Error(`${raw} sent no Content-Length, which an upload needs: name the URL directly as a task input instead`);
  }
  // A size over the service's limit is refused by the upload URL from its Content-Length, with
  // the service's sentence, before the body is read.
  return { body: Readable.fromWeb(res.body as never), size, name: lastSegment(url) || 'download' };
}

function lastSegment(url: URL): string {
  const raw = url.pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // not valid percent-encoding: the name as written
  }
}
