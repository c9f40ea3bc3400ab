// The shape of a POST /ffmpeg/process (and /async) body: { task: { inputs, outputs } [, webhook_url] },
// with the spec's exact messages where it has them. Options are only checked for shape and size
// here; checkOutputOptions applies the allow-list.
import { Errors } from '@media/platform';
import { fileNameProblem, isValidDirId } from './file-name.js';
import { LIMITS } from './limits.js';
import { numberedPatternRegex, parseNumberedPattern } from './numbered-pattern.js';
import { charCount, hasControlChar, refuse, show } from './refuse.js';

export type TaskInput =
  | { kind: 'uploaded'; dirId: string; fileName: string; filePath: string }
  | { kind: 'url'; url: string };

export interface TaskOutput {
  file: string;
  options: string[];
}

export interface ValidatedTask {
  inputs: TaskInput[];
  outputs: TaskOutput[];
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

function readInputs(raw: unknown): TaskInput[] {
  if (!Array.isArray(raw) || raw.length === 0) throw Errors.inputsNotArray();
  if (raw.length > LIMITS.maxInputs) refuse(`task.inputs has ${raw.length} items; at most ${LIMITS.maxInputs} are allowed`);
  const inputs = raw.map((item, i) => {
    const where = `task.inputs[${i}]`;
    if (!isObject(item)) refuse(`${where} must be an object with file_path`);
    onlyFields(item, ['file_path'], where);
    return parseFilePath(item.file_path, `${where}.file_path`);
  });
  const dirs = new Set(inputs.flatMap((inp) => (inp.kind === 'uploaded' ? [inp.dirId] : [])));
  if (dirs.size > 1) throw Errors.inputsSameDirectory();
  return inputs;
}

// The option after which a filtergraph comes (its own, larger limit applies).
const GRAPH_OPTION = /^-(?:vf|af|lavfi|filter_complex|filter(?::.*)?)$/;

function readOptions(raw: unknown, where: string): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.some((o) => typeof o !== 'string')) refuse(`${where} must be an array of strings`);
  if (raw.length > LIMITS.maxOptions) refuse(`${where} has ${raw.length} entries; at most ${LIMITS.maxOptions} are allowed`);
  const options = raw as string[];
  options.forEach((opt, i) => {
    const graph = i > 0 && GRAPH_OPTION.test(options[i - 1]!);
    const max = graph ? LIMITS.maxFilterGraphChars : LIMITS.maxOptionChars;
    const n = charCount(opt);
    if (n > max) {
      refuse(graph
        ? `The filter graph in ${where}[${i}] is ${n} characters long; at most ${max} are allowed`
        : `${where}[${i}] is ${n} characters long; an option may have at most ${max}`);
    }
  });
  return options;
}

function readOutputs(raw: unknown, inputs: readonly TaskInput[]): TaskOutput[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > LIMITS.maxOutputs) {
    const got = Array.isArray(raw) ? ` (got ${raw.length})` : '';
    refuse(`task.outputs must be an array of 1 to ${LIMITS.maxOutputs} outputs${got}`);
  }
  const inputNames = inputs.flatMap((inp) => (inp.kind === 'uploaded' ? [inp.fileName] : []));
  const names = new Set<string>();
  return raw.map((item, i) => {
    const where = `task.outputs[${i}]`;
    if (!isObject(item)) refuse(`${where} must be an object with file and options`);
    onlyFields(item, ['file', 'options'], where);
    if (typeof item.file !== 'string') refuse(`${where}.file must be a string (the output file name)`);
    const file = item.file;
    const problem = fileNameProblem(file);
    if (problem) refuse(`${where}.file ${show(file)} ${problem}`);
    const pattern = parseNumberedPattern(file);
    if (typeof pattern === 'string') refuse(`${where}.file ${show(file)} ${pattern}`);
    const re = pattern ? numberedPatternRegex(file) : null;
    for (const name of inputNames) {
      if (name === file || re?.test(name)) throw Errors.outputConflicts(file);
    }
    if (names.has(file)) refuse(`${where}.file ${show(file)} is used by another output`);
    names.add(file);
    return { file, options: readOptions(item.options, `${where}.options`) };
  });
}

/**
 * Checks the body of POST /ffmpeg/process (or /async with allowWebhook) and returns the task in
 * normalised form. Throws DomainError 400 with the spec's message where it has one.
 */
export function validateTaskShape(body: unknown, opts: TaskShapeOptions = {}): ValidatedTask {
  if (!isObject(body) || !isObject(body.task)) throw Errors.taskRequired();
  const allowed = opts.allowWebhook ? ['task', 'webhook_url'] : ['task'];
  const hint = !opts.allowWebhook && 'webhook_url' in body ? ' (webhook_url is only accepted by POST /ffmpeg/process/async)' : '';
  onlyFields(body, allowed, 'the request body', hint);
  let webhookUrl: string | undefined;
  if (body.webhook_url !== undefined) {
    if (typeof body.webhook_url !== 'string') refuse('webhook_url must be a string');
    const problem = httpsUrlProblem(body.webhook_url);
    if (problem) refuse(`webhook_url ${show(body.webhook_url)} ${problem}`);
    webhookUrl = body.webhook_url;
  }
  const task = body.task;
  onlyFields(task, ['inputs', 'outputs'], 'task');
  const inputs = readInputs(task.inputs);
  const outputs = readOutputs(task.outputs, inputs);
  return { inputs, outputs, ...(webhookUrl === undefined ? {} : { webhookUrl }) };
}
