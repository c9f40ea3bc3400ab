// JSON-schema pieces shared by the routes.

export const nullable = <T extends string>(type: T) => ({ type: [type, 'null'] }) as const;

export const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

/** The spec's Usage object, as every charged response carries it. */
export const usageSchema = {
  type: 'object',
  properties: {
    time_sec: { type: 'number' },
    input_size_gb: { type: 'number' },
    output_size_gb: { type: 'number' },
    gb_sec: { type: 'number' },
  },
} as const;

/** A result item (output file). */
export const resultItemSchema = {
  type: 'object',
  properties: { file_name: { type: 'string' }, size_bytes: { type: 'integer' }, download_url: { type: 'string' } },
} as const;
