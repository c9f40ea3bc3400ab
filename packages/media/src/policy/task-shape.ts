// The JSON of a POST /ffmpeg/process (and /async) body, read into the proto Task: { task: { inputs,
// outputs, filter_complex?, output_dir_id? } [, webhook_url] }, with the spec's exact texts where
// it has them. The task's fields are the proto's (jobs.proto, walked here): only their JSON types
// and names are checked (what the gateway needs to pass the task on); every rule about values and
// counts is planTask's (plan/plan-task.ts), which Jobs runs once.
import { type DescField, type DescMessage, fromJson, ScalarType } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import { type Task, TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { DomainError, Errors } from '@media/platform';
import { fileNameProblem, isValidDirId } from './file-name.js';
import { LIMITS } from './limits.js';
import { charCount, hasControlChar, refuse, show } from './refuse.js';

export type TaskInput = { kind: 'uploaded'; dirId: string; fileName: string; filePath: string } | { kind: 'url'; url: string };

export interface TaskRequest {
  task: Task;
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

/**
 * Reads one file_path: "<dir_id>/<file_name>" of an uploaded file, or an https:// URL. `hint`
 * follows the spec's sentence when it is neither (a task input can also be generated).
 */
export function parseFilePath(filePath: unknown, where = 'file_path', hint = ''): TaskInput {
  if (typeof filePath !== 'string') throw Errors.invalidFilePath();
  if (SCHEME.test(filePath)) {
    const problem = httpsUrlProblem(filePath);
    if (problem) refuse(`${where} ${show(filePath)} ${problem}`);
    return { kind: 'url', url: new URL(filePath).href };
  }
  const slash = filePath.indexOf('/');
  const dirId = filePath.slice(0, Math.max(slash, 0));
  const fileName = filePath.slice(slash + 1);
  if (slash < 0 || !isValidDirId(dirId) || fileNameProblem(fileName) !== null) {
    const spec = Errors.invalidFilePath();
    throw hint ? new DomainError(spec.kind, `${spec.message}${hint}`) : spec;
  }
  return { kind: 'uploaded', dirId, fileName, filePath };
}

/**
 * In the task's JSON a field is required unless it is `optional` or a list of strings (left out:
 * empty). The reader below and the OpenAPI schema (gateway task-schema.ts) both follow it.
 */
export function isRequiredField(field: DescField): boolean {
  if (field.fieldKind === 'list') return field.listKind === 'message';
  return field.presence === FeatureSet_FieldPresence.IMPLICIT;
}

/** The spec's texts (or a hint after the generic sentence) for fields where it has them. */
interface FieldTexts {
  /** A list of objects that is missing or not a list. */
  notList?: (where: string) => never;
  /** Its items when they are not objects: what they must hold. */
  itemHint?: string;
  /** A string field that is missing or not a string: the spec's error, or a hint. */
  notString?: (() => never) | string;
}

const FIELD_TEXTS: Record<string, FieldTexts> = {
  'media.jobs.v1.Task.inputs': {
    notList: () => {
      throw Errors.inputsNotArray();
    },
    itemHint: ' with file_path',
  },
  // How many is the plan's to judge (it names the count); here only that it is a list.
  'media.jobs.v1.Task.outputs': {
    notList: (where) => refuse(`${where} must be an array of 1 to ${LIMITS.maxOutputs} outputs`),
    itemHint: ' with file and options',
  },
  'media.jobs.v1.TaskInput.file_path': {
    notString: () => {
      throw Errors.invalidFilePath();
    },
  },
  'media.jobs.v1.TaskOutput.file': { notString: ' (the output file name)' },
  'media.jobs.v1.Task.filter_complex': { notString: ' (a filter graph)' },
  'media.jobs.v1.Task.output_dir_id': { notString: ' (a directory id)' },
};

const textsOf = (field: DescField): FieldTexts => FIELD_TEXTS[`${field.parent.typeName}.${field.name}`] ?? {};

function checkMessage(desc: DescMessage, raw: unknown, where: string, itemHint = ''): void {
  if (!isObject(raw)) refuse(`${where} must be an object${itemHint}`);
  onlyFields(
    raw,
    desc.fields.map((f) => f.jsonName),
    where,
  );
  for (const field of desc.fields) checkField(field, raw[field.jsonName], `${where}.${field.jsonName}`);
}

function checkField(field: DescField, value: unknown, where: string): void {
  if (value === undefined && !isRequiredField(field)) return;
  const texts = textsOf(field);
  if (field.fieldKind === 'list' && field.listKind === 'message') {
    const notList: (where: string) => never = texts.notList ?? ((w) => refuse(`${w} must be an array`));
    if (!Array.isArray(value)) notList(where);
    for (const [i, item] of value.entries()) checkMessage(field.message, item, `${where}[${i}]`, texts.itemHint);
  } else if (field.fieldKind === 'list' && field.listKind === 'scalar' && field.scalar === ScalarType.STRING) {
    if (!Array.isArray(value) || value.some((o) => typeof o !== 'string')) refuse(`${where} must be an array of strings`);
  } else if (field.fieldKind === 'scalar' && field.scalar === ScalarType.STRING) {
    if (typeof value === 'string') return;
    if (typeof texts.notString === 'function') texts.notString();
    refuse(`${where} must be a string${texts.notString ?? ''}`);
  } else if (field.fieldKind === 'message') {
    checkMessage(field.message, value, where);
  } else if (value === undefined) {
    refuse(`${where} is required`);
  }
  // The values of other kinds (numbers, enums, booleans) are left to fromJson, whose sentence names the field.
}

/**
 * Reads the body of POST /ffmpeg/process (or /async with allowWebhook) into the proto Task. Throws
 * DomainError 400 with the spec's message where it has one.
 */
export function readTaskRequest(body: unknown, opts: TaskShapeOptions = {}): TaskRequest {
  if (!isObject(body) || !isObject(body.task)) throw Errors.taskRequired();
  const allowed = opts.allowWebhook ? ['task', 'webhook_url'] : ['task'];
  const hint = !opts.allowWebhook && 'webhook_url' in body ? ' (webhook_url is only accepted by POST /ffmpeg/process/async)' : '';
  onlyFields(body, allowed, 'the request body', hint);
  if (body.webhook_url !== undefined && typeof body.webhook_url !== 'string') refuse('webhook_url must be a string');
  checkMessage(TaskSchema, body.task, 'task');
  let task: Task;
  try {
    task = fromJson(TaskSchema, body.task as never);
  } catch (e) {
    refuse(`task: ${(e as Error).message}`);
  }
  return { task, ...(body.webhook_url === undefined ? {} : { webhookUrl: body.webhook_url as string }) };
}
