// Turns JSON-schema validation failures into one clear sentence a user can act on.
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

const PLACE: Record<string, string> = { body: 'request body', querystring: 'query string', params: 'path' };

function fieldName(err: FastifySchemaValidationError, extra?: string): string {
  const path = (err.instancePath || '').split('/').filter(Boolean).join('.');
  return [path, extra].filter(Boolean).join('.');
}

export function validationMessage(errors: FastifySchemaValidationError[], context?: string): string {
  const err = errors[0];
  const where = PLACE[context ?? 'body'] ?? context ?? 'request';
  if (!err) return `Invalid ${where}`;
  const params = err.params as Record<string, unknown>;
  // A schema may carry its own sentence (errorMessage keyword style) for spec-defined texts.
  const custom = (err as { parentSchema?: { errorMessage?: string } }).parentSchema?.errorMessage;
  if (custom) return custom;
  switch (err.keyword) {
    case 'additionalProperties':
      return `Unknown field '${fieldName(err, String(params.additionalProperty))}' in ${where}`;
    case 'required':
      return `Missing required field '${fieldName(err, String(params.missingProperty))}' in ${where}`;
    case 'type':
      return fieldName(err)
        ? `Field '${fieldName(err)}' in ${where} must be ${article(String(params.type))}`
        : `The ${where} must be ${article(String(params.type))}`;
    default:
      return fieldName(err) ? `Field '${fieldName(err)}' in ${where} ${err.message}` : `The ${where} ${err.message}`;
  }
}

function article(type: string): string {
  const t = type.split(',')[0]!;
  const name = t === 'object' ? 'JSON object' : t;
  return /^[aeiou]/i.test(name) ? `an ${name}` : `a ${name}`;
}
