// JSON-schema pieces shared by the routes.

export const errorResponse = {
  type: 'object',
  properties: { ok: { const: false }, error: { type: 'string' } },
  required: ['ok', 'error'],
} as const;

export const nullable = (type: string) => ({ type: [type, 'null'] });

export const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;
