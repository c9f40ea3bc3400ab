import { keysFromAuthorization } from '../src/domain/authorization.js';
import { generateKey, hashKey } from '../src/domain/keys.js';
import { estimate, secondsUntilAllowed } from '@media/platform';
import { checkRate, type RateCounters } from '../src/domain/rate-limit.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('keysFromAuthorization', () => {
  const key = generateKey('mk');

  test('generated keys have the prefix and 40 letters and digits', () => {
    expect(key).toMatch(/^mk_[A-Za-z0-9]{40}$/);
    expect(generateKey('mk')).not.toBe(key);
  });

  test.each([
    ['raw key', `Basic ${key}`],
    ['lower-case scheme', `basic ${key}`],
    ['base64 of the key', `Basic ${b64(key)}`],
    ['key as user, empty password', `Basic ${b64(`${key}:`)}`],
    ['key as password, empty user', `Basic ${b64(`:${key}`)}`],
    ['key as password, any user', `Basic ${b64(`anything:${key}`)}`],
    ['extra spaces', `Basic   ${key}  `],
  ])('%s', (_name, header) => {
    expect(keysFromAuthorization(header, 'mk')).toEqual([key]);
  });

  test.each([
    ['no scheme', key],
    ['Bearer', `Bearer ${key}`],
    ['other prefix', `Basic ${key.replace('mk_', 'xx_')}`],
    ['too short', `Basic ${key.slice(0, -1)}`],
    ['punctuation in key', `Basic ${key.slice(0, -1)}!`],
    ['base64 of junk', `Basic ${b64('nope:nope')}`],
    ['two tokens', `Basic ${key} ${key}`],
    ['empty', 'Basic '],
  ])('%s -> none', (_name, header) => {
    expect(keysFromAuthorization(header, 'mk')).toEqual([]);
  });

  test('hash is stable and not the key', () => {
    expect(hashKey(key)).toBe(hashKey(key));
    expect(hashKey(key)).not.toContain(key.slice(3));
  });
});

describe('sliding-window rate limit', () => {
  function memoryCounters(): RateCounters {
    const m = new Map<string, number>();
    return {
      async add(k, w, d) {
        const v = (m.get(`${k}:${w}`) ?? 0) + d;
        m.set(`${k}:${w}`, v);
        return v;
      },
      async get(k, w) {
        return m.get(`${k}:${w}`) ?? 0;
      },
    };
  }

  test('300 pass, the 301st is refused and not counted', async () => {
    const c = memoryCounters();
    const t0 = 10 * 60_000 + 1000;
    for (let i = 0; i < 300; i++) expect((await checkRate(c, 'k', 300, t0)).allowed).toBe(true);
    const refused = await checkRate(c, 'k', 300, t0);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSec).toBeGreaterThan(0);
    expect(await c.get('k', 10)).toBe(300);
  });

  test('the previous minute still weighs at the start of the next one', async () => {
    const c = memoryCounters();
    for (let i = 0; i < 300; i++) await checkRate(c, 'k', 300, 10 * 60_000 + 59_000);
    // 1 s into the next window, ~295 of the previous still count.
    const at = 11 * 60_000 + 1000;
    let allowed = 0;
    while ((await checkRate(c, 'k', 300, at)).allowed) allowed++;
    expect(allowed).toBe(5);
  });

  test('retry-after is when the estimate falls under the limit', () => {
    expect(estimate(300, 0, 30_000)).toBe(150);
    // 300 in the previous window, 0 now, 0 s in: wait until the weight drops (60 * (1 - 299/300) s).
    expect(secondsUntilAllowed(300, 0, 0, 300)).toBe(1);
    // All 300 in this window, 10 s in: the next window starts in 50 s.
    expect(secondsUntilAllowed(0, 300, 10_000, 300)).toBe(50);
  });
});
