// File name and directory id rules from the spec (File resource, Limits part).
import { LIMITS } from './limits.js';
import { charCount, hasControlChar } from './refuse.js';

export const DIR_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Why `name` is not a valid file name, or null when it is one. */
export function fileNameProblem(name: string): string | null {
  const n = charCount(name);
  if (n < 1 || n > LIMITS.maxFileNameChars) return `must be 1 to ${LIMITS.maxFileNameChars} characters`;
  if (name.includes('/') || name.includes('\\')) return 'must not contain a slash or backslash';
  if (hasControlChar(name)) return 'must not contain control characters';
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  return null;
}

export function isValidFileName(name: string): boolean {
  return fileNameProblem(name) === null;
}

export function isValidDirId(id: string): boolean {
  return DIR_ID_PATTERN.test(id);
}

/** Lower-case extension without the dot ('' when the name has none). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}
