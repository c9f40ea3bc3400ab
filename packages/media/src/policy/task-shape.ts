// The JSON of a POST /ffmpeg/process (and /async) body, read into a typed task: { task: { inputs,
// outputs, filter_complex?, output_dir_id? } [, webhook_url] }, with the spec's exact texts where
// it has them. Only types and field names are checked here (what the gateway needs to pass the
// task on); everything else is planTask's (plan/plan-task.ts), which Jobs runs once.
import { Errors } from '@media/platform';
import { fileNameProblem, isValidDirId } from './file-name.js';
import { LIMITS } from './limits.js';
import type { TaskSpec } from './plan/types.js';
import { charCount, hasControlChar, refuse, show } from './refuse.js';

export type TaskInput = { kind: 'uploaded'; dirId: string; fileName: string; filePath: string } | { kind: 'url'; url: string };

export interface TaskRequest {
  task: TaskSpec;
  webhookUrl?: string;
}

export interface TaskShapeOptions {
  /** POST /ffmpeg/process/async: the body may carry webhook_url. */
  allowWebhook?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyFields(obj: Record<string, unknown>, allowed: readonly string[], where: string, hint = '') {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) refuse(`Unknown field ${show(key)} in ${where}${hint}`);
  }
}

/** Why `url` is not an acceptable HTTPS URL, or null. Address checks happen at fetch time. */
export function httpsUrlProblem(url: string): string | null {
  if (charCount(url) > LIMITS.maxUrlChars) return `is longer than ${LIMITS.maxUrlChars} characters`;
  if (/\s/.test(url) || hasControlChar(url)) return 'must not contain spaces or control characters';
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be a public HTTPS URL (https://...)';
  }
  if (u.protocol !== 'https:') return 'must be a public HTTPS URL (https://...)';
  if (u.username !== '' || u.password !== '') return 'must not contain a user name or password';
  if (u.hostname === '') return 'must name a host';
  return null;
}

/** Refuses a webhook_url that is not an HTTPS URL; its address is checked where it is used. */
export function checkWebhookUrlForm(url: string): void {
  const problem = httpsUrlProblem(url);
  if (problem) refuse(`webhook_url ${show(url)} ${problem}`);
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Reads one file_path: "<dir_id>/<file_name>" of an uploaded file, or an https:// URL. */
export function parseFilePath(filePath: unknown, where = 'file_path'): TaskInput {
  if (typeof filePath !== 'string') throw Errors.invalidFilePath();
  if (SCHEME.test(filePath)) {
    const problem = httpsUrlProblem(filePath);
    if (problem) refuse(`${where} ${show(filePath)} ${problem}`);
    return { kind: 'url', url: new URL(filePath).href };
  }
  const slash = filePath.indexOf('/');
  const dirId = filePath.slice(0, Math.max(slash, 0));
  const fileName = filePath.slice(slash + 1);
  if (slash < 0 || !isValidDirId(dirId) || fileNameProblem(fileName) !== null) throw Errors.invalidFilePath();
  return { kind: 'uploaded', dirId, fileName, filePath };
}

function strings(raw: unknown, where: string): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.some((o) => typeof o !== 'string')) refuse(`${where} must be an array of strings`);
  return raw as string[];
}

function readInputs(raw: unknown): TaskSpec['inputs'] {
  if (!Array.isArray(raw) || raw.length === 0) throw Errors.inputsNotArray();
  return raw.map((item, i) => {
    const where = `task.inputs[${i}]`;
    if (!isObject(item)) refuse(`${where} must be an object with file_path`);
    onlyFields(item, ['file_path', 'options'], where);
    if (typeof item.file_path !== 'string') throw Errors.invalidFilePath();
    return { filePath: item.file_path, options: strings(item.options, `${where}.options`) };
  });
}

function readOutputs(raw: unknown): TaskSpec['outputs'] {
  // How many is the plan's to judge (it names the count); here only that it is a list.
  if (!Array.isArray(raw)) refuse(`task.outputs must be an array of 1 to ${LIMITS.maxOutputs} outputs`);
  return raw.map((item, i) => {
    const where = `task.outputs[${i}]`;
    if (!isObject(item)) refuse(`${where} must be an object with file and options`);
    onlyFields(item, ['file', 'options', 'maps'], where);
    if (typeof item.file !== 'string') refuse(`${where}.file must be a string (the output file name)`);
    return { file: item.file, options: strings(item.options, `${where}.options`), maps: strings(item.maps, `${where}.maps`) };
  });
}

/**
 * Reads the body of POST /ffmpeg/process (or /async with allowWebhook) into a typed task. Throws
 * DomainError 400 with the spec's message where it has one.
 */
export function readTaskRequest(body: unknown, opts: TaskShapeOptions = {}): TaskRequest {
  if (!isObject(body) || !isObject(body.task)) throw Errors.taskRequired();
  const allowed = opts.allowWebhook ? ['task', 'webhook_url'] : ['task'];
  const hint = !opts.allowWebhook && 'webhook_url' in body ? ' (webhook_url is only accepted by POST /ffmpeg/process/async)' : '';
  onlyFields(body, allowed, 'the request body', hint);
  if (body.webhook_url !== undefined && typeof body.webhook_url !== 'string') refuse('webhook_url must be a string');
  const task = body.task;
  onlyFields(task, ['inputs', 'outputs', 'filter_complex', 'output_dir_id'], 'task');
  const inputs = readInputs(task.inputs);
  const outputs = readOutputs(task.outputs);
  if (task.filter_complex !== undefined && typeof task.filter_complex !== 'string')
    refuse('task.filter_complex must be a string (a filter graph)');
  if (task.output_dir_id !== undefined && typeof task.output_dir_id !== 'string')
    refuse('task.output_dir_id must be a string (a directory id)');
  return {
    task: {
      inputs,
      outputs,
      ...(task.filter_complex === undefined ? {} : { filterComplex: task.filter_complex as string }),
      ...(task.output_dir_id === undefined ? {} : { outputDirId: task.output_dir_id as string }),
    },
    ...(body.webhook_url === undefined ? {} : { webhookUrl: body.webhook_url as string }),
  };
}

/**
 * The body readTaskRequest reads, as JSON Schema for the OpenAPI document and typed clients. It
 * documents the shape; readTaskRequest (here) and planTask keep the rules and their sentences.
 */
export function taskRequestSchema(opts: TaskShapeOptions = {}) {
  const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;
  const task = {
    type: 'object',
    additionalProperties: false,
    required: ['inputs', 'outputs'],
    properties: {
      inputs: {
        type: 'array',
        minItems: 1,
        maxItems: LIMITS.maxInputs,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['file_path'],
          properties: {
            file_path: { type: 'string', description: '<dir_id>/<file_name> of an uploaded file, or a public https:// URL.' },
            options: strings('FFmpeg options placed before this input\'s -i, one argument per item, e.g. ["-ss", "5"].'),
          },
        },
      },
      outputs: {
        type: 'array',
        minItems: 1,
        maxItems: LIMITS.maxOutputs,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['file'],
          properties: {
            file: { type: 'string', description: 'The output file name (no directory).' },
            options: strings('FFmpeg options for this output, one argument per item, e.g. ["-c:v", "libx264"].'),
            maps: strings('-map arguments for this output, e.g. ["0:v:0", "[out]"].'),
          },
        },
      },
      filter_complex: { type: 'string', description: 'A -filter_complex graph; inputs are [0], [1]... in the order of inputs.' },
      output_dir_id: { type: 'string', description: 'The directory to store outputs in (default: a new one).' },
    },
  } as const;
  const webhook = {
    webhook_url: { type: 'string', format: 'uri', description: 'A public HTTPS URL the result is POSTed to (Standard Webhooks).' },
  } as const;
  return {
    type: 'object',
    additionalProperties: false,
    required: ['task'],
    properties: { task, ...(opts.allowWebhook ? webhook : {}) },
  } as const;
}
