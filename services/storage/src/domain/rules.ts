// The spec's names, ids and lifetimes (platform's spec-rules.ts) as Storage answers them.
import { DEFAULT_TTL_SEC, Errors, fileNameProblem, isDirId, MAX_TTL_SEC } from '@media/platform';

export { DOWNLOAD_URL_TTL_SEC, fileNameProblem, isDirId, MAX_FILE_BYTES, RESULT_URL_TTL_SEC, UPLOAD_URL_TTL_SEC } from '@media/platform';

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
