// Where `media` remembers its resumable uploads (tus, where the upload URL speaks it), for the
// CLI's commands and the MCP server's upload_file alike: one record, so an upload one of them
// left unfinished is continued by the other.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { MediaClient } from '@media/client';
import { fileUrlStorage, type ResumeOptions } from '@media/client/node';
import { cacheDir } from './upload-cache.js';

/**
 * A JSON file in the CLI's cache directory (`tus-uploads.json`), entries scoped by service and
 * key (a hash of it). None when the cache cannot be written: the upload still runs, it just
 * cannot be resumed.
 */
export async function resumeOptions(
  media: MediaClient,
  env: Record<string, string | undefined>,
  apiKey: string,
): Promise<ResumeOptions | undefined> {
  try {
    const urlStorage = await fileUrlStorage(join(cacheDir(env), 'tus-uploads.json'));
    const keyHash = createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
    return { urlStorage, scope: `${media.baseUrl.replace(/\/+$/, '')} ${keyHash}` };
  } catch {
    return undefined;
  }
}
