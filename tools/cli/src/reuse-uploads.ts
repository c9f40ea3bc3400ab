// Local files into the service: reused when this CLI already uploaded the same bytes under the
// same name and the service still has them (checked with a request), uploaded otherwise. The
// inputs of one task share one directory, so a directory is reused only when it holds them all
// (or when the command line fixes the directory, by a file_path input).
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { MediaApiError, type MediaClient, type RegisteredFile } from '@media/client';
import {
  type FileUploadOptions,
  forgetRecordedUploads,
  type OnProgress,
  recordedUpload,
  type ResumeOptions,
  uploadFile,
  uploadStream,
} from '@media/client/node';
import type { LocalFile } from './local-files.js';
import { type CachedUpload, type Digest, digestOf, hashingTap, type UploadCache } from './upload-cache.js';

export interface Uploaded {
  registered: RegisteredFile;
  digest: Digest;
  /** The service took the resume of an earlier run's upload of the file (it continued, or had it whole). */
  resumed?: boolean;
}

/** Registers and uploads a local file, hashing the bytes as they are sent (one read of the file). */
export async function uploadHashed(
  media: MediaClient,
  file: LocalFile,
  dirId?: string,
  onProgress?: OnProgress,
  resumable?: Pick<FileUploadOptions, 'resume' | 'onResume'>,
): Promise<Uploaded> {
  if (resumable?.resume) {
    // A resumed upload sends only the rest of the file: the digest is a read of its own.
    const [registered, digest] = await Promise.all([
      uploadFile(media, file.path, { dirId, fileName: file.name, onProgress, ...resumable }),
      digestOf(file.path),
    ]);
    return { registered, digest };
  }
  const { tap, digest } = hashingTap();
  const reading = pipeline(createReadStream(file.path), tap);
  reading.catch(() => undefined); // awaited below; the upload fails with it first
  try {
    const registered = await uploadStream(media, tap, file.size, { dirId, fileName: file.name, onProgress });
    await reading;
    return { registered, digest: digest() };
  } catch (err) {
    tap.destroy();
    throw err;
  }
}

/**
 * Records uploads in the cache with their directory's expiry (asked of the service once). Best
 * effort: the uploads are done, and a failure here only means they are not reused.
 */
export async function recordUploads(media: MediaClient, cache: UploadCache, uploads: readonly Uploaded[]): Promise<void> {
  if (uploads.length === 0) return;
  const directories = await media.listDirectories().then(
    (answer) => answer.directories,
    () => [],
  );
  const expiry = new Map(directories.map((d) => [d.id, new Date(Date.parse(d.added_on) + d.ttl * 1000).toISOString()]));
  const known = uploads.filter((u) => expiry.has(u.registered.file.dir_id));
  await cache.remember(
    known.map(({ registered: { file }, digest }) => ({
      digest,
      file: {
        dir_id: file.dir_id,
        file_name: file.file_name,
        file_path: file.file_path,
        added_on: file.added_on,
        expires_at: expiry.get(file.dir_id)!,
      },
    })),
  );
}

/** Where the first file with an unfinished upload went (continueUnfinished). */
export interface Continued {
  file: LocalFile;
  uploaded: Uploaded;
  /** The directory every file of the command goes into. */
  dirId: string;
  /** Whether the service took the resume: dirId is the earlier run's (it may hold files it finished). */
  accepted: boolean;
}

/**
 * Continues an upload an earlier run of the command left unfinished among these files, if there
 * is one, so that all the files go into one directory: the first file with a record goes first
 * (into its recorded directory when the service takes the resume, else into a new one), and the
 * others follow it there. The records of the other files in another directory are abandoned (said
 * on stderr): they are uploaded anew with the rest. Without the upload cache (reuse off), which
 * files that run finished cannot be told, so with several files every record is abandoned and all
 * go into a new directory (undefined returned).
 */
export async function continueUnfinished(
  files: readonly LocalFile[],
  resume: ResumeOptions | undefined,
  cached: boolean,
  upload: (file: LocalFile) => Promise<Uploaded>,
  say: (line: string) => void,
): Promise<Continued | undefined> {
  if (!resume) return undefined;
  const recorded: { file: LocalFile; filePath: string }[] = [];
  for (const file of files) {
    const found = await recordedUpload(file.path, resume, file.name);
    if (found) recorded.push({ file, filePath: found.filePath });
  }
  const abandon = async (file: LocalFile, filePath: string, why: string) => {
    await forgetRecordedUploads(file.path, resume, file.name);
    say(`the interrupted upload of ${file.name} (${filePath}) is abandoned: ${file.name} is uploaded anew, ${why}`);
  };
  if (recorded.length === 0) return undefined;
  if (!cached && files.length > 1) {
    for (const { file, filePath } of recorded) await abandon(file, filePath, 'with the other files in a new directory (reuse is off)');
    return undefined;
  }
  const { file } = recorded[0]!;
  const uploaded = await upload(file);
  const dirId = uploaded.registered.file.dir_id;
  for (const other of recorded.slice(1)) {
    const found = await recordedUpload(other.file.path, resume, other.file.name);
    if (found && found.dirId !== dirId) await abandon(other.file, found.filePath, `into ${dirId} with the other files`);
  }
  return { file, uploaded, dirId, accepted: uploaded.resumed === true };
}

/**
 * The file_path of this file in `dirId` if this CLI uploaded the same bytes there under the same
 * name and the service still has them whole (an earlier run of the same command); else undefined.
 */
export async function uploadedIn(
  media: MediaClient,
  cache: UploadCache,
  file: LocalFile,
  dirId: string,
  resume: ResumeOptions | undefined,
): Promise<string | undefined> {
  // A file with a record of its own is the upload's to judge (it resumes, or finds it whole).
  if (resume && (await recordedUpload(file.path, resume, file.name))) return undefined;
  if (!(await cache.mayHave(file.name, file.size))) return undefined;
  const entry = await cache.find(await digestOf(file.path), file.name);
  if (!entry || entry.dir_id !== dirId) return undefined;
  return (await stillThere(media, entry, listingOnce(media)).catch(() => false)) ? entry.file_path : undefined;
}

export interface PlaceOptions {
  /** The directory the files must go into (a file_path input, or continueUnfinished, fixed it); default: a new one or a reused one. */
  dirId?: string;
  /** The upload cache; undefined: reuse is off. */
  cache?: UploadCache;
  /** Uploads one file (with its progress) into dirId, a new directory when undefined. */
  upload: (file: LocalFile, dirId?: string) => Promise<Uploaded>;
  say: (line: string) => void;
}

/** Finds the cached uploads of these files (hashing only files a cache entry could match). */
async function cachedUploads(cache: UploadCache, files: readonly LocalFile[]) {
  const found = new Map<LocalFile, { digest: Digest; entry: CachedUpload }>();
  for (const file of files) {
    if (!(await cache.mayHave(file.name, file.size))) continue;
    const digest = await digestOf(file.path);
    const entry = await cache.find(digest, file.name);
    if (entry) found.set(file, { digest, entry });
  }
  return found;
}

/**
 * Whether the service still has the file this CLI uploaded, whole; false when it or its directory
 * is gone, or when a file was stored over it since (a run's output of the same name: another
 * added_on), whatever its size.
 */
async function stillThere(media: MediaClient, entry: CachedUpload, listing: Listing): Promise<boolean> {
  try {
    if (entry.added_on !== undefined) {
      const { files } = await listing(entry.dir_id);
      const listed = files.find((f) => f.file_name === entry.file_name);
      if (!listed || Date.parse(listed.added_on) !== Date.parse(entry.added_on)) return false;
    }
    const { file_info } = await media.fileInfo(entry.dir_id, entry.file_name);
    return file_info.file_size === entry.size;
  } catch (err) {
    if (err instanceof MediaApiError && err.kind === 'not_found') return false;
    throw err;
  }
}

type Listing = (dirId: string) => ReturnType<MediaClient['listFiles']>;

/** A directory's listing, asked of the service once however many of its files are checked. */
function listingOnce(media: MediaClient): Listing {
  const asked = new Map<string, ReturnType<MediaClient['listFiles']>>();
  return (dirId) => {
    if (!asked.has(dirId)) asked.set(dirId, media.listFiles(dirId));
    return asked.get(dirId)!;
  };
}

/** Puts each local file into one directory of the service: the file_path of each, by local path. */
export async function placeLocalFiles(media: MediaClient, files: readonly LocalFile[], opts: PlaceOptions): Promise<Map<string, string>> {
  const placed = new Map<string, string>();
  const found = opts.cache && files.length > 0 ? await cachedUploads(opts.cache, files) : new Map();
  const dirs = new Set([...found.values()].map((f) => f.entry.dir_id));
  // A directory fixed by the command line, or by an earlier run's upload continued
  // (continueUnfinished); else reuse one only if it holds every file, or all go to a new one.
  const fixed = opts.dirId;
  let dirId = fixed ?? (found.size === files.length && dirs.size === 1 ? [...dirs][0] : undefined);
  let reused = new Map<LocalFile, Digest>();
  const gone: Digest[] = [];
  const listing = listingOnce(media);
  for (const [file, { digest, entry }] of found) {
    if (entry.dir_id !== dirId) continue;
    if (await stillThere(media, entry, listing)) {
      placed.set(file.path, entry.file_path);
      reused.set(file, digest);
    } else gone.push(digest);
  }
  if (gone.length > 0 && fixed === undefined) {
    // The directory lost a file (or expired): upload them all into a new one.
    placed.clear();
    reused = new Map();
    dirId = undefined;
  }
  // Forgotten before the uploads record theirs (the same bytes: the same entry).
  if (opts.cache && gone.length > 0) await opts.cache.touch(gone, true);
  for (const file of files) {
    if (placed.has(file.path)) continue;
    const up = await opts.upload(file, dirId);
    dirId = up.registered.file.dir_id;
    placed.set(file.path, up.registered.file.file_path);
    // Recorded at once: a run stopped during the next file finds this one whole when repeated.
    if (opts.cache) await recordUploads(media, opts.cache, [up]);
  }
  for (const file of reused.keys())
    opts.say(`reused ${file.path}: ${placed.get(file.path)} (uploaded before, same bytes; --no-reuse uploads again)`);
  if (opts.cache && reused.size > 0) await opts.cache.touch([...reused.values()]);
  return placed;
}
