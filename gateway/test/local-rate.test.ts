// The gateway's own rate decisions on counts shared through Auth: exact for one gateway, bounded
// by one sync interval across replicas, nothing admitted lost when Auth cannot be reached.
import { createLocalRate, type Admitted, type RateCounts } from '../src/auth/local-rate.js';

/** Auth's shared counters, as CountRequests keeps them. */
function sharedCounts() {
  const counts = new Map<string, number>();
  const get = (k: string, w: number) => counts.get(`${k}:${w}`) ?? 0;
  return {
    get,
    add(keyId: string, window: number, n: number) {
      counts.set(`${keyId}:${window}`, get(keyId, window) + n);
    },
    reports: 0,
    async report(admitted: Admitted[]): Promise<RateCounts[]> {
      this.reports++;
      return admitted.map((a) => {
        this.add(a.keyId, a.window, a.count);
        return { keyId: a.keyId, window: a.window, previous: get(a.keyId, a.window - 1), current: get(a.keyId, a.window) };
      });
    },
  };
}

const W = 60_000;
let clock = 0;
const now = () => clock;
const made: { close(): Promise<void> }[] = [];
const gateway = (auth: ReturnType<typeof sharedCounts>, limit = 10) => {
  const rate = createLocalRate({ limit, syncMs: 60_000, now, report: (a) => auth.report(a) });
  made.push(rate);
  return rate;
};
/** What Authenticate does for a key's first request at a gateway: counts it and answers the counts. */
const authenticate = (auth: ReturnType<typeof sharedCounts>, keyId: string) => {
  const w = Math.floor(clock / W);
  auth.add(keyId, w, 1);
  return { keyId, window: w, previous: auth.get(keyId, w - 1), current: auth.get(keyId, w) };
};

beforeEach(() => {
  clock = 100 * W + 1000; // early in a window, nothing in the previous one
});
afterEach(async () => {
  await Promise.all(made.splice(0).map((r) => r.close()));
});

test('a key unknown to this gateway gets no decision (the caller asks Auth)', () => {
  expect(gateway(sharedCounts()).admit('k')).toBeUndefined();
});

test('one gateway: exactly the limit is admitted, then 429 with the seconds to wait', async () => {
  const auth = sharedCounts();
  const g = gateway(auth);
  g.seed(authenticate(auth, 'k'));
  const decisions = Array.from({ length: 12 }, () => g.admit('k')!);
  expect(decisions.filter((d) => d.allowed)).toHaveLength(9); // + the authenticated one = 10
  expect(decisions[8]).toMatchObject({ allowed: true, remaining: 0 });
  expect(decisions[9]).toMatchObject({ allowed: false, remaining: 0 });
  expect(decisions[9]!.retryAfterSec).toBe(59);
  await g.flush();
  // Refused requests are not counted; everything admitted reached Auth in one report.
  expect(auth.get('k', 100)).toBe(10);
  expect(auth.reports).toBe(1);
});

test('two gateways share one count once they have reported', async () => {
  const auth = sharedCounts();
  const [a, b] = [gateway(auth), gateway(auth)];
  a.seed(authenticate(auth, 'k'));
  for (let i = 0; i < 4; i++) expect(a.admit('k')!.allowed).toBe(true); // 5 in all
  await a.flush();
  b.seed(authenticate(auth, 'k')); // 6: b hears the 5 before it
  for (let i = 0; i < 4; i++) expect(b.admit('k')!.allowed).toBe(true); // 10
  expect(b.admit('k')!.allowed).toBe(false);
  await b.flush();
  await a.flush(); // a has nothing to report, so it has not heard of b's requests yet ...
  expect(a.admit('k')!.allowed).toBe(true); // ... the overshoot one sync interval allows
  await a.flush();
  expect(a.admit('k')!.allowed).toBe(false);
  expect(auth.get('k', 100)).toBe(11);
});

test('the previous window still weighs in after the minute rolls, and its last counts are reported', async () => {
  const auth = sharedCounts();
  const g = gateway(auth);
  g.seed(authenticate(auth, 'k'));
  for (let i = 0; i < 9; i++) g.admit('k');
  clock = 101 * W + 6_000; // 10% into the next window: 90% of the previous 10 still counts
  expect(g.admit('k')).toMatchObject({ allowed: true, remaining: 0 }); // 9 + 1
  expect(g.admit('k')!.allowed).toBe(false);
  await g.flush();
  expect([auth.get('k', 100), auth.get('k', 101)]).toEqual([10, 1]);
});

test('Auth unreachable: admitted requests stay counted here and are reported later', async () => {
  const auth = sharedCounts();
  let down = true;
  const errors: unknown[] = [];
  const g = createLocalRate({
    limit: 10,
    syncMs: 60_000,
    now,
    report: async (a) => {
      if (down) throw new Error('unavailable');
      return auth.report(a);
    },
    onReportError: (e) => errors.push(e),
  });
  made.push(g);
  g.seed(authenticate(auth, 'k'));
  for (let i = 0; i < 5; i++) g.admit('k');
  await g.flush();
  expect(errors).toHaveLength(1);
  for (let i = 0; i < 4; i++) expect(g.admit('k')!.allowed).toBe(true);
  expect(g.admit('k')!.allowed).toBe(false); // still 10 in all while Auth is down
  down = false;
  await g.flush();
  expect(auth.get('k', 100)).toBe(10);
});
