// Shared helpers for the policy tests: task bodies, planning as Jobs does it, and a matcher for
// 400 refusals.
import { DomainError } from '@media/platform';
import { planTask, readTaskRequest, type TaskPlan } from '../src/policy/index.js';

export const DIR = 'dir_abcdefghij0123456789';

export interface OutputSpec {
  file: string;
  options?: string[];
  maps?: string[];
}

export type InputSpec = string | { file_path: string; options?: string[] };

/** A request body with uploaded inputs from one directory (in.mp4, logo.png, ...). */
export function body(outputs: OutputSpec[], inputs: InputSpec[] = [`${DIR}/in.mp4`], extra: Record<string, unknown> = {}) {
  return { task: { inputs: inputs.map((i) => (typeof i === 'string' ? { file_path: i } : i)), outputs, ...extra } };
}

/** A body with one output. */
export function single(options: string[], file = 'out.mp4', inputs?: InputSpec[]) {
  return body([{ file, options }], inputs);
}

/** Plans a request body the way the service does: the gateway reads it, Jobs plans it. */
export function plan(requestBody: unknown): TaskPlan {
  return planTask(readTaskRequest(requestBody, { allowWebhook: true }).task);
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

/** The refusal sentence of planning this body. */
export const refused = (requestBody: unknown) => refusal(() => plan(requestBody)).message;
