// GET /account/usage: the query rules the gateway answers before Billing is asked: the fast level
// (build() on in-memory services, in-memory.ts). The rows, formats and cursors Billing serves are
// tested on a stack in usage.test.ts (with the cursors Billing refuses); the period arithmetic in usage-query.test.ts.
import { USAGE_RULES } from '../src/routes/usage.js';
import { buildInMemoryGateway, type InMemoryGateway } from './in-memory.js';

let gateway: InMemoryGateway;
beforeAll(async () => {
  gateway = await buildInMemoryGateway();
});
afterAll(() => gateway?.close());

test.each<[string, string]>([
  ['month=2026-13', USAGE_RULES.month],
  ['month=2026-1', USAGE_RULES.month],
  ['month=', USAGE_RULES.month],
  ['month=2026-05&month=2026-06', USAGE_RULES.month],
  ['from=2026-02-30&to=2026-03-01', USAGE_RULES.from],
  ['from=2026-03-01&to=tomorrow', USAGE_RULES.to],
  ['from=2026-03-01T10:00:00&to=2026-03-02', USAGE_RULES.from],
  ['month=2026-03&from=2026-03-01&to=2026-03-02', USAGE_RULES.monthWithRange],
  ['from=2026-03-01', USAGE_RULES.pair],
  ['to=2026-03-01', USAGE_RULES.pair],
  ['from=2026-03-02&to=2026-03-01', USAGE_RULES.order],
  ['key_id=abc', USAGE_RULES.keyId],
  ['key_id=key_a-b', USAGE_RULES.keyId],
  ['format=xml', USAGE_RULES.format],
  ['format=CSV', USAGE_RULES.format],
  ['format=json&limit=0', USAGE_RULES.limit],
  ['format=json&limit=10001', USAGE_RULES.limit],
  ['format=json&limit=abc', USAGE_RULES.limit],
  ['format=json&limit=1.5', USAGE_RULES.limit],
  ['format=json&limit=', USAGE_RULES.limit],
  ['limit=10', USAGE_RULES.jsonOnly],
  ['format=csv&cursor=abc', USAGE_RULES.jsonOnly],
  ['foo=1', "Unknown field 'foo' in query string"],
  ['Month=2026-03', "Unknown field 'Month' in query string"],
])('?%s -> 400, Billing not asked', async (query, error) => {
  const from = gateway.calls.length;
  const res = await gateway.app.inject({
    method: 'GET',
    url: `/account/usage?${query}`,
    headers: { authorization: gateway.authorization },
  });
  expect({ status: res.statusCode, body: JSON.parse(res.body) }).toEqual({ status: 400, body: { ok: false, error } });
  expect(gateway.calls.slice(from).filter((c) => !c.startsWith('media.auth.'))).toEqual([]);
});
