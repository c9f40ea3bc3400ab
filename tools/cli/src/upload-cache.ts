// The uploads this user's CLI made, so that a run repeated with corrected options reuses them
// instead of uploading the same bytes into a new directory. One small JSON file under the user's
// cache directory ($XDG_CACHE_HOME/media-cli, else ~/.cache/media-cli). An entry is keyed by the
// service URL, a hash of the API key (never the key) and the file's sha256 and size; it lives as
// long as its directory, and the caller checks with the service that the file is still there
// before reusing it.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Env var that turns reuse off (like --no-reuse). */
export const NO_REUSE_ENV = 'MEDIA_NO_REUSE';
/** Entries kept at most; the least recently used go first. */
const MAX_ENTRIES = 500;
const FILE_NAME = 'uploads.json';
/** A directory this close to its end is not reused: a queued job must still find the file. */
const REUSE_MARGIN_MS = 15 * 60_000;
const reusableAfter = () => new Date(Date.now() + REUSE_MARGIN_MS).toISOString();

export interface Digest {
  sha256: string;
  size: number;
}

export interface CachedUpload {
  dir_id: string;
  file_name: string;
  file_path: string;
  size: number;
  /** When the service registered the file (ISO): a file stored over it since has another. */
  added_on?: string;
  /** When the directory expires (ISO); the entry goes with it. */
  expires_at: string;
  used_at: string;
}

interface CacheFile {
  version: 1;
  entries: Record<string, CachedUpload>;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The sha256 of a file, read as a stream. */
export async function digestOf(path: string): Promise<Digest> {
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(createReadStream(path), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      hash.update(chunk);
      size += chunk.length;
    }
  });
  return { sha256: hash.digest('hex'), size };
}

/** A pass-through that hashes what flows through it (an upload hashes the bytes it sends). */
export function hashingTap(): { tap: Transform; digest: () => Digest } {
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  return { tap, digest: () => ({ sha256: hash.digest('hex'), size }) };
}

/** Where the cache lives for this environment. */
export function cacheDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'media-cli');
}

export class UploadCache {
  private readonly file: string;
  private readonly scope: string;

  /** `service`: the API URL; `apiKey` is only hashed, so keys never share entries and never land on disk. */
  constructor(dir: string, service: string, apiKey: string) {
    this.file = join(dir, FILE_NAME);
    this.scope = `${service.replace(/\/+$/, '')} ${sha256(apiKey).slice(0, 16)}`;
  }

  private key(d: Digest) {
    return `${this.scope} ${d.sha256}:${d.size}`;
  }

  private async read(): Promise<CacheFile> {
    try {
      const parsed = JSON.parse(await readFile(this.file, 'utf8')) as CacheFile;
      if (parsed?.version === 1 && parsed.entries && typeof parsed.entries === 'object') return parsed;
    } catch {
      // missing or damaged: start over (it only saves uploads)
    }
    return { version: 1, entries: {} };
  }

  /**
   * Writes atomically (a rename), dropping expired entries and the least used beyond the cap. A
   * cache that cannot be written (a read-only home) only costs uploads: the command goes on.
   */
  private async write(cache: CacheFile): Promise<void> {
    try {
      await this.writeFile(cache);
    } catch {
      // best effort, as above
    }
  }

  private async writeFile(cache: CacheFile): Promise<void> {
    const now = new Date().toISOString();
    const live = Object.entries(cache.entries)
      .filter(([, e]) => e.expires_at > now)
      .sort(([, a], [, b]) => b.used_at.localeCompare(a.used_at))
      .slice(0, MAX_ENTRIES);
    await mkdir(join(this.file, '..'), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ version: 1, entries: Object.fromEntries(live) }), { mode: 0o600 });
    await rename(tmp, this.file);
  }

  /** Whether an unexpired entry could match a file of this name and size (worth hashing it). */
  async mayHave(name: string, size: number): Promise<boolean> {
    const now = reusableAfter();
    const prefix = `${this.scope} `;
    return Object.entries((await this.read()).entries).some(
      ([k, e]) => k.startsWith(prefix) && e.file_name === name && e.size === size && e.expires_at > now,
    );
  }

  /** The upload of these bytes under this name, if one was recorded and its directory has time left. */
  async find(d: Digest, name: string): Promise<CachedUpload | undefined> {
    const entry = (await this.read()).entries[this.key(d)];
    return entry && entry.file_name === name && entry.expires_at > reusableAfter() ? entry : undefined;
  }

  /** Records uploads (the directory's expiry given), and forgets others at the same file_path. */
  async remember(uploads: readonly { digest: Digest; file: Omit<CachedUpload, 'used_at' | 'size'> }[]): Promise<void> {
    const cache = await this.read();
    const used_at = new Date().toISOString();
    for (const { digest, file } of uploads) {
      for (const [k, e] of Object.entries(cache.entries))
        if (k.startsWith(`${this.scope} `) && e.file_path === file.file_path) delete cache.entries[k];
      cache.entries[this.key(digest)] = { ...file, size: digest.size, used_at };
    }
    await this.write(cache);
  }

  /** Marks entries used (kept longest), or drops them (the service no longer has the file). */
  async touch(digests: readonly Digest[], drop = false): Promise<void> {
    const cache = await this.read();
    const used_at = new Date().toISOString();
    for (const d of digests) {
      const entry = cache.entries[this.key(d)];
      if (!entry) continue;
      if (drop) delete cache.entries[this.key(d)];
      else entry.used_at = used_at;
    }
    await this.write(cache);
  }
}
