// The spec's rules for files, directories, signed URLs and account limits, in one place: the
// gateway, every service and the media policy read them from here.

/** An API key's requests a minute, and an account's jobs in progress (defaults; operators may change them). */
export const RATE_LIMIT_PER_MINUTE = 300;
export const PARALLEL_JOBS_PER_ACCOUNT = 50;
/** A job's (or a probe's) time limit: the spec's 60 minutes (default; operators may change it). */
export const JOB_TIMEOUT_SEC = 3600;
/** Largest file: uploads, URL inputs and outputs (the spec's 5 GB, decimal as in its texts). */
export const MAX_FILE_BYTES = 5_000_000_000;
/** A directory's lifetime: default and largest (POST /directory ttl). */
export const DEFAULT_TTL_SEC = 86_400;
export const MAX_TTL_SEC = 604_800;
/** Signed URLs: an upload's, a download's (GET /file/download) and a result item's. */
export const UPLOAD_URL_TTL_SEC = 300;
export const DOWNLOAD_URL_TTL_SEC = 300;
export const RESULT_URL_TTL_SEC = 3600;
/** A web console session: Auth keeps it this long, the console's cookie lives as long (not the spec's). */
export const CONSOLE_SESSION_TTL_MS = 12 * 3_600_000;
/** File names count characters (code points); directory ids are ASCII. */
export const MAX_FILE_NAME_CHARS = 255;
export const MAX_DIR_ID_CHARS = 64;
export const DIR_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

// C0 and C1 control characters and DEL.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const isDirId = (id: string): boolean => DIR_ID_PATTERN.test(id);

/** Why `name` is not a valid file name, or null: 1 to 255 characters, no slash, backslash or control character, not "." or "..". */
export function fileNameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < 1 || length > MAX_FILE_NAME_CHARS) return `must be 1 to ${MAX_FILE_NAME_CHARS} characters`;
  if (name.includes('/') || name.includes('\\')) return 'must not contain a slash or backslash';
  if (CONTROL.test(name)) return 'must not contain control characters';
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  return null;
}
