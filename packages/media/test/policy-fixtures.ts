// Shared helpers for the policy tests: task bodies and a matcher for 400 refusals.
import { DomainError } from '@media/platform';

export const DIR = 'dir_abcdefghij0123456789';

export interface OutputSpec {
  file: string;
  options: string[];
}

/** A request body with uploaded inputs from one directory (in.mp4, logo.png, ...). */
export function body(outputs: OutputSpec[], inputs: string[] = [`${DIR}/in.mp4`]): { task: { inputs: { file_path: string }[]; outputs: OutputSpec[] } } {
  return { task: { inputs: inputs.map((file_path) => ({ file_path })), outputs } };
}

/** A body with one output. */
export function single(options: string[], file = 'out.mp4', inputs?: string[]) {
  return body([{ file, options }], inputs);
}

/** Runs fn and returns the DomainError it throws; fails the test if it throws nothing or something else. */
export function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw new Error(`expected a DomainError, got ${String(e)}`);
  }
  throw new Error('expected a refusal, but the task was accepted');
}
