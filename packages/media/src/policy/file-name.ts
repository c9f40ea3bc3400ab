// File name and directory id rules from the spec (File resource, Limits part): platform's
// spec-rules.ts, as the task policy uses them.
import { DIR_ID_PATTERN, fileNameProblem } from '@media/platform';

export { DIR_ID_PATTERN, fileNameProblem } from '@media/platform';

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
