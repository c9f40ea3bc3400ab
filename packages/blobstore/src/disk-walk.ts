// Walking the on-disk tree back into keys (deletePrefix needs it for partial last segments).
import type { Dirent } from 'node:fs';
import { readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeSegment, isContinuation } from './disk-names.js';

export interface DiskBlob {
  key: string;
  path: string;
}

/**
 * Yields every blob below `dir`, whose path stands for the key prefix `keyPrefix` ("" or ending
 * in "/"). `pending` carries the encoded start of a segment split into "~" chunks.
 */
export async function* walkBlobs(dir: string, keyPrefix: string, pending = ''): AsyncGenerator<DiskBlob> {
  const entries = await entriesOf(dir);
  if (entries === null) return;
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue; // uploads in flight (.tmp), never a blob
    const path = join(dir, entry.name);
    if (isContinuation(entry.name)) {
      if (entry.isDirectory()) yield* walkBlobs(path, keyPrefix, pending + entry.name.slice(1));
      continue;
    }
    const segment = decodeSegment(pending + entry.name);
    if (segment === null) continue; // temp files and anything else we did not write
    if (entry.isDirectory()) yield* walkBlobs(path, `${keyPrefix}${segment}/`);
    else if (entry.isFile()) yield { key: keyPrefix + segment, path };
  }
}

/** Removes empty directories below `dir` (and `dir` itself unless keepTop); others stay. */
export async function pruneEmptyDirs(dir: string, keepTop: boolean): Promise<void> {
  const entries = await entriesOf(dir);
  if (entries === null) return;
  for (const entry of entries) {
    // ".tmp" holds uploads in flight; it is not ours to remove.
    if (entry.isDirectory() && !entry.name.startsWith('.')) await pruneEmptyDirs(join(dir, entry.name), false);
  }
  if (!keepTop) {
    // A concurrent put may have just created something here: then the directory stays.
    await rmdir(dir).catch(() => undefined);
  }
}

/** The entries of `dir`, or null when it is gone (removed by a concurrent delete, say). */
async function entriesOf(dir: string): Promise<Dirent[] | null> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

export function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
