// The record of resumable uploads in a JSON file, ours rather than tus-js-client's FileUrlStorage
// (whose reads do not take its lock, so they can see a file half written, and whose damaged file
// we used to reset without it, wiping every other upload's record). Same format: an object of
// `<fingerprint>::<random>` keys to tus-js-client's stored uploads. A write is a whole new file
// renamed over the old one, so a reader sees the file before or after, never between. A change
// (read, change, write) holds the file's lock: a chain of promises within this process, and a
// lock file (created with O_EXCL) across processes, so concurrent changes are never lost.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
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

/** A lock file older than this is another process's that died holding it: taken over. */
export const LOCK_STALE_MS = 10_000;
/** How long a change waits for the lock before it gives up (best effort: nothing kept). */
const LOCK_WAIT_MS = 30_000;

/** The changes of each file within this process, one after another. */
const chains = new Map<string, Promise<unknown>>();

/** Runs `fn` holding the lock of `path` across processes: `${path}.lock`, created with O_EXCL. */
async function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  const until = Date.now() + LOCK_WAIT_MS;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      await (await open(lock, 'wx', 0o600)).close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const held = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (held > LOCK_STALE_MS) {
        // Taken over: renamed away first, so that of two processes taking it over only one wins.
        const away = `${lock}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
        const took = await rename(lock, away).then(
          () => true,
          () => false,
        );
        if (took) await rm(away, { force: true });
        continue;
      }
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

/** Runs `fn` holding the lock of `path`, within this process and across processes. */
function locked<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const run = (chains.get(path) ?? Promise.resolve()).catch(() => undefined).then(() => withFileLock(path, fn));
  const tail = run.catch(() => undefined);
  chains.set(path, tail);
  void tail.then(() => {
    if (chains.get(path) === tail) chains.delete(path);
  });
  return run;
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
  /** Reads, changes and writes the records, holding the lock; false when it could not. */
  const update = async (change: (records: Record<string, Stored>) => void): Promise<boolean> => {
    try {
      await locked(path, async () => {
        const records = await read();
        change(records);
        await writeRecords(path, records);
      });
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
