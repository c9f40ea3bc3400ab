// Two validators: bodies are JSON and must have the declared types exactly ("100" is not a
// number); query strings and path parameters are text and are coerced ("20" -> 20).
import { Ajv, type Options } from 'ajv';
import type { FastifyInstance } from 'fastify';

const common: Options = { allErrors: false, removeAdditional: false, useDefaults: true, verbose: true, keywords: ['errorMessage'] };

export function installValidators(app: FastifyInstance): void {
  const strict = new Ajv({ ...common, coerceTypes: false });
  const coercing = new Ajv({ ...common, coerceTypes: 'array' });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}
