// The OpenAPI schema of the POST /ffmpeg/process(/async) body, generated from the proto Task (the
// task's one declaration, jobs.proto) by walking its descriptor: the fields' JSON names, their
// (media.api.v1.description) options, and which are required (@media/media isRequiredField, the
// rule readTaskRequest follows). It documents the shape; readTaskRequest and planTask keep the
// rules and their sentences.
import { type DescField, type DescMessage, getOption, hasOption, ScalarType } from '@bufbuild/protobuf';
import { isRequiredField, POLICY_LIMITS } from '@media/media';
import { description } from '@media/proto/media/api/v1/annotations_pb.js';
import { TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';

type JsonSchema = Record<string, unknown>;

/** Bounds the document states for lists (the planner refuses past them; POLICY_LIMITS is their home). */
const LIST_BOUNDS: Record<string, { minItems: number; maxItems: number }> = {
  'media.jobs.v1.Task.inputs': { minItems: 1, maxItems: POLICY_LIMITS.maxInputs },
  'media.jobs.v1.Task.outputs': { minItems: 1, maxItems: POLICY_LIMITS.maxOutputs },
};

function scalarSchema(scalar: ScalarType): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return { type: 'string' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: 'number' };
    default:
      return { type: 'integer' };
  }
}

function fieldSchema(field: DescField): JsonSchema {
  const doc = hasOption(field, description) ? { description: getOption(field, description) } : {};
  switch (field.fieldKind) {
    case 'scalar':
      return { ...scalarSchema(field.scalar), ...doc };
    case 'enum':
      return { type: 'string', enum: field.enum.values.map((v) => v.name), ...doc };
    case 'message':
      return { ...messageSchema(field.message), ...doc };
    case 'list': {
      const items =
        field.listKind === 'message'
          ? messageSchema(field.message)
          : field.listKind === 'enum'
            ? { type: 'string', enum: field.enum.values.map((v) => v.name) }
            : scalarSchema(field.scalar);
      const bounds = LIST_BOUNDS[`${field.parent.typeName}.${field.name}`] ?? {};
      return { type: 'array', ...bounds, items, ...doc };
    }
    default:
      return { type: 'object', ...doc };
  }
}

/** A message as a closed JSON object, its fields under their JSON names. */
function messageSchema(desc: DescMessage): JsonSchema {
  const required = desc.fields.filter(isRequiredField).map((f) => f.jsonName);
  return {
    type: 'object',
    additionalProperties: false,
    ...(required.length > 0 ? { required } : {}),
    properties: Object.fromEntries(desc.fields.map((f) => [f.jsonName, fieldSchema(f)])),
  };
}

/** The body readTaskRequest reads: { task } (and webhook_url on the async endpoint). */
export function taskRequestSchema(opts: { allowWebhook?: boolean } = {}): JsonSchema {
  const webhook = {
    webhook_url: { type: 'string', format: 'uri', description: 'A public HTTPS URL the result is POSTed to (Standard Webhooks).' },
  };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['task'],
    properties: { task: messageSchema(TaskSchema), ...(opts.allowWebhook ? webhook : {}) },
  };
}
