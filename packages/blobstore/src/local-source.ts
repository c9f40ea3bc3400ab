// A file already on this host that the local-disk store takes in without its bytes crossing an
// RPC (job outputs in the Jobs work directory). Only a regular file inside one trusted directory
// is accepted: the path must be absolute and normalised (no "." or ".." segments), lie under the
// directory, and have no symbolic link anywhere below it; the file is opened without following a
// link and the checks are made on what was opened, so swapping a name afterwards changes nothing.
import { constants } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join, normalize, resolve, sep } from 'node:path';

/** A source the caller must not trust (or that is not on this host); nothing was taken in. */
export class LocalSourceRefusedError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`local source ${JSON.stringify(path)} refused: ${reason}`);
    this.name = 'LocalSourceRefusedError';
  }
}

/** An opened, checked source. Close it with `handle.close()` when done. */
export interface LocalSource {
  /** The path as given (absolute, normalised, inside the trusted directory). */
  readonly path: string;
  readonly handle: FileHandle;
  readonly size: number;
  readonly dev: number;
  readonly ino: number;
}

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** Where the kernel says an open file is (Linux); undefined where /proc is not mounted. */
async function openedPath(handle: FileHandle): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Opens `path` for reading if it is a regular file inside `trustedDir` (which may itself be
 * reached through symbolic links, e.g. /tmp -> /private/tmp); throws LocalSourceRefusedError
 * otherwise, also when there is no such file here (the caller is on another host).
 */
export async function openLocalSource(trustedDir: string, path: string): Promise<LocalSource> {
  const refuse = (reason: string) => new LocalSourceRefusedError(path, reason);
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0') || !isAbsolute(path)) throw refuse('not an absolute path');
  if (path.split(sep).some((s) => s === '.' || s === '..') || normalize(path) !== path || path.endsWith(sep))
    throw refuse('not a normalised path');
  const root = resolve(trustedDir);
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw refuse('the trusted directory does not exist on this host');
    if (code === 'EACCES' || code === 'EPERM') throw refuse('the trusted directory is not readable by this process');
    throw err;
  }
  const below = (dir: string) => (path.startsWith(dir + sep) ? path.slice(dir.length + 1) : undefined);
  const relative = below(root) ?? below(realRoot);
  if (!relative) throw refuse('outside the trusted directory');

  let handle: FileHandle;
  try {
    // O_NOFOLLOW: a link as the last name fails (ELOOP); O_NONBLOCK: a FIFO cannot stall the open.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    const code = errno(err);
    if (code === 'ELOOP') throw refuse('a symbolic link');
    if (code === 'ENOENT' || code === 'ENOTDIR') throw refuse('no such file on this host');
    if (code === 'EACCES' || code === 'EPERM') throw refuse('not readable by this process');
    throw err;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw refuse('not a regular file');
    // The file actually opened must be exactly at <real trusted dir>/<relative>: a link in any
    // directory below the trusted one (or one swapped in during the open) shows up as a mismatch.
    const where = (await openedPath(handle)) ?? (await realpath(path));
    if (where !== join(realRoot, relative)) throw refuse('a symbolic link in the path, or outside the trusted directory');
    return { path, handle, size: info.size, dev: info.dev, ino: info.ino };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
