// The record of resumable uploads in a JSON file, ours rather than tus-js-client's FileUrlStorage
// (whose reads do not take its lock, so they can see a file half written, and whose damaged file
// we used to reset without it, wiping every other upload's record). Same format: an object of
// `<fingerprint>::<random>` keys to tus-js-client's stored uploads. A write is a whole new file
// renamed over the old one, so a reader sees the file before or after, never between.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PreviousUpload, UrlStorage } from 'tus-js-client';

/** A record older than this is dropped when the file is opened: no directory lives longer (7 days). */
export const RECORD_MAX_AGE_MS = 7 * 24 * 3600_000;

type Stored = Omit<PreviousUpload, 'urlStorageKey'> & { urlStorageKey?: string };

class DamagedFile extends Error {}

/** The records in the file: {} when it is missing; DamagedFile when it is not a JSON object. */
async function readRecords(path: string): Promise<Record<string, Stored>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, Stored>;
  } catch {
    // below
  }
  throw new DamagedFile(path);
}

async function writeRecords(path: string, records: Record<string, Stored>): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify(records), { mode: 0o600 });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

const tooOld = (s: Stored, now: number) => {
  const created = Date.parse(s.creationTime ?? '');
  return Number.isFinite(created) && now - created > RECORD_MAX_AGE_MS;
};

/**
 * A URL storage in a JSON file at `path`. Best effort: a file that cannot be read or written (a
 * read-only home) costs the resume, never the upload (tus-js-client would otherwise stop an
 * upload whose URL it cannot record), so its errors are swallowed: nothing found, nothing kept. A
 * file that does not parse is read again (another process may be renaming a new one into place)
 * and only then replaced, by the next write. Records older than 7 days go when it is opened.
 */
export async function fileUrlStorage(path: string): Promise<UrlStorage> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 }).catch(() => undefined);
  const read = async (): Promise<Record<string, Stored>> => {
    try {
      return await readRecords(path);
    } catch (err) {
      if (!(err instanceof DamagedFile)) throw err;
      try {
        return await readRecords(path);
      } catch (again) {
        if (again instanceof DamagedFile) return {};
        throw again;
      }
    }
  };
  /** Reads, changes and writes the records; false when it could not. */
  const update = async (change: (records: Record<string, Stored>) => void): Promise<boolean> => {
    try {
      const records = await read();
      change(records);
      await writeRecords(path, records);
      return true;
    } catch {
      return false;
    }
  };
  const list = async (fingerprint?: string): Promise<PreviousUpload[]> => {
    const records = await read().catch(() => ({}) as Record<string, Stored>);
    return Object.entries(records)
      .filter(([key]) => fingerprint === undefined || key.startsWith(`${fingerprint}::`))
      .map(([key, s]) => ({ ...s, urlStorageKey: key }) as PreviousUpload);
  };

  // Opened: prune the records too old to matter (only when there are some, so no write otherwise).
  const now = Date.now();
  const old = Object.entries(await read().catch(() => ({}) as Record<string, Stored>)).filter(([, s]) => tooOld(s, now));
  if (old.length > 0)
    await update((records) => {
      for (const [key, s] of Object.entries(records)) if (tooOld(s, now)) delete records[key];
    });

  return {
    findAllUploads: () => list(),
    findUploadsByFingerprint: (fingerprint) => list(fingerprint),
    removeUpload: async (key) => {
      if ((await list()).some((p) => p.urlStorageKey === key))
        await update((records) => {
          delete records[key];
        });
    },
    addUpload: async (fingerprint, upload) => {
      const key = `${fingerprint}::${randomBytes(8).toString('hex')}`;
      const { urlStorageKey: _ignored, ...stored } = upload as Stored;
      return (await update((records) => {
        records[key] = stored;
      }))
        ? key
        : '';
    },
  };
}
