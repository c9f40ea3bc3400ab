// The gateway's cache of Auth's verdicts: a confirmed key lives on, an unconfirmed one lapses,
// eviction by key reaches every header form of it, and a key's own expiry is checked each time.
import { createVerdictCache } from '../src/auth/verdicts.js';
import { sleep } from './helpers.js';

const v = (keyId: string, accountId = 'acc_a', keyExpiresAt?: number) => ({ keyId, accountId, keyExpiresAt });

test('a verdict lapses after the TTL unless Auth confirms the key', async () => {
  const cache = createVerdictCache({ ttlMs: 400 });
  cache.set('Basic a', v('key_a'));
  cache.set('Basic b', v('key_b'));
  for (let i = 0; i < 6; i++) {
    await sleep(100);
    cache.confirm('key_a');
  }
  expect(cache.get('Basic a')).toEqual(v('key_a'));
  expect(cache.get('Basic b')).toBeUndefined();
});

test('forgetting a key drops all its header forms; forgetting an account drops its keys only', () => {
  const cache = createVerdictCache({ ttlMs: 60_000 });
  cache.set('Basic k1', v('key_1'));
  cache.set('Basic azE=', v('key_1'));
  cache.set('Basic k2', v('key_2'));
  cache.set('Basic k3', v('key_3', 'acc_b'));
  cache.forgetKey('key_1');
  expect([cache.get('Basic k1'), cache.get('Basic azE='), cache.get('Basic k2')?.keyId]).toEqual([undefined, undefined, 'key_2']);
  cache.forgetAccount('acc_a');
  expect([cache.get('Basic k2'), cache.get('Basic k3')?.keyId]).toEqual([undefined, 'key_3']);
});

test('a key past its own expiry is not admitted from the cache, confirmed or not', () => {
  let now = 1_000;
  const cache = createVerdictCache({ ttlMs: 60_000, now: () => now });
  cache.set('Basic e', v('key_e', 'acc_a', 2_000));
  expect(cache.get('Basic e')?.keyId).toBe('key_e');
  now = 2_000;
  cache.confirm('key_e');
  expect(cache.get('Basic e')).toBeUndefined();
});

test('a TTL of 0 caches nothing', () => {
  const cache = createVerdictCache({ ttlMs: 0 });
  cache.set('Basic a', v('key_a'));
  expect(cache.get('Basic a')).toBeUndefined();
});
