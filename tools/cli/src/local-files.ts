// What an input on the command line is (a local file to upload, or what the API reads as a
// file_path: <dir_id>/<name> or a URL), and the check of every local file before any request:
// a typo answers "in.mp4: no such file" (exit 1), not an upload or the API's "Invalid file_path".
import { access, constants, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

export interface LocalFile {
  /** As given on the command line. */
  path: string;
  /** The name it gets in the directory. */
  name: string;
  size: number;
}

/** A local file that is missing or cannot be read (exit 1, like any failure that is not the API's). */
export class LocalFileError extends Error {
  override readonly name = 'LocalFileError';
}

const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
/** <dir_id>/<name>: one slash, not a path that starts at /, ~ or a dot. */
const FILE_PATH_SHAPE = /^[^/\\.~][^/\\]*\/[^/\\]+$/;

const exists = (path: string) =>
  stat(path).then(
    (s) => s,
    () => undefined,
  );

/**
 * Whether an input is sent to the API as it is (a URL, or <dir_id>/<name> with no such local
 * file) rather than uploaded. A path with no local file is remote only when it has the shape of a
 * file_path and its folder part is no local folder (`clips/in.mp4` with a `clips` folder is a typo).
 */
export async function isRemoteInput(input: string): Promise<boolean> {
  if (URL_SCHEME.test(input)) return true;
  if (await exists(input)) return false;
  return FILE_PATH_SHAPE.test(input) && !(await exists(dirname(input)))?.isDirectory();
}

/** Stats one local file; a missing, unreadable or non-regular one is a LocalFileError. */
export async function localFile(path: string, name = basename(path)): Promise<LocalFile> {
  const found = await exists(path);
  if (!found) throw new LocalFileError(`${path}: no such file`);
  if (!found.isFile()) throw new LocalFileError(`${path}: not a file${found.isDirectory() ? ' (a directory)' : ''}`);
  try {
    await access(path, constants.R_OK);
  } catch {
    throw new LocalFileError(`${path}: cannot be read (permission denied)`);
  }
  return { path, name, size: found.size };
}

/** The local files among these inputs, each checked; throws on the first bad one, before any request. */
export async function localInputs(inputs: readonly string[]): Promise<Map<string, LocalFile>> {
  const local = new Map<string, LocalFile>();
  for (const input of inputs) if (!local.has(input) && !(await isRemoteInput(input))) local.set(input, await localFile(input));
  return local;
}

/** The directory of a <dir_id>/<name> input (a task's other inputs must go there); undefined otherwise. */
export function filePathDir(input: string): string | undefined {
  return URL_SCHEME.test(input) || !FILE_PATH_SHAPE.test(input) ? undefined : input.slice(0, input.indexOf('/'));
}
