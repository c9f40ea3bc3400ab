// Names, ids and lifetimes exactly as the spec rules them.
import { Errors } from '@media/platform';

export const MAX_FILE_BYTES = 5_000_000_000;
export const DEFAULT_TTL_SEC = 86_400;
export const MAX_TTL_SEC = 604_800;
export const UPLOAD_URL_TTL_SEC = 300;
export const DOWNLOAD_URL_TTL_SEC = 300;
export const RESULT_URL_TTL_SEC = 3600;

const DIR_ID = /^[A-Za-z0-9_-]{1,64}$/;
// C0 and C1 control characters and DEL.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const isDirId = (id: string): boolean => DIR_ID.test(id);

/** 1 to 255 characters (code points), no slash, backslash or control character, not "." or "..". */
export function fileNameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < 1 || length > 255) return 'must be 1 to 255 characters';
  if (name.includes('/') || name.includes('\\')) return 'must not contain a slash or backslash';
  if (CONTROL.test(name)) return 'must not contain control characters';
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  return null;
}

export function assertFileName(name: string, field = 'file_name'): void {
  const problem = fileNameProblem(name);
  if (problem) throw Errors.invalidRequest(`${field} ${problem}`);
}

export function assertDirId(id: string, field = 'dir_id'): void {
  if (!isDirId(id)) throw Errors.invalidRequest(`${field} must be 1 to 64 letters, digits, underscores or hyphens`);
}

export function ttlOrDefault(ttl: number | undefined): number {
  if (ttl === undefined) return DEFAULT_TTL_SEC;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_SEC) {
    throw Errors.invalidRequest(`ttl must be a whole number of seconds from 1 to ${MAX_TTL_SEC}`);
  }
  return ttl;
}
