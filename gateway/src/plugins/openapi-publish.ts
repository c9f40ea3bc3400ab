// What the route schemas carry for the gateway's own validators but OpenAPI 3.1 does not know:
// left out of the published document (docs/openapi.json and the docs listener's copy), never out
// of the schemas that validate requests. A linter (Redocly) rejects a document that keeps them.

/** ajv-errors' keyword: the spec's sentence for a refused query value (plugins/validators.ts). */
const VALIDATOR_ONLY_KEYWORDS = new Set(['errorMessage']);

/** Keys whose members are names chosen by the API (a property, a schema), not keywords. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'schemas']);

/** Keys whose values are data (examples, defaults), copied as they are. */
const DATA = new Set(['example', 'examples', 'default', 'const', 'enum']);

function strip(value: unknown, names: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => strip(v, false));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!names && VALIDATOR_ONLY_KEYWORDS.has(key)) continue;
    out[key] = !names && DATA.has(key) ? v : strip(v, !names && NAME_MAPS.has(key));
  }
  return out;
}

/** A copy of `doc` without the validator-only keywords (the input is not changed). */
export function publishable<T extends object>(doc: T): T {
  return strip(doc, false) as T;
}
