// Idempotency-Key records (the repository, with the clock passed in): who takes a key, what a
// request with a taken key gets, and how a key whose gateway stopped renewing is taken over.
import { IDEMPOTENCY_LEASE_SEC, IDEMPOTENCY_TTL_SEC } from '@media/platform';
import { embeddedRepo } from './embedded.js';

const repo = embeddedRepo('idem');

// Ahead of the real clock, so the store's own TTL sweep (real time) never removes a record here.
const t0 = new Date(Date.now() + 30 * 86_400_000);
const at = (sec: number) => new Date(t0.getTime() + sec * 1000);
let n = 0;
const freshKey = () => `key-${++n}`;

test('the first request takes the key; the same request then waits (in progress), another is a mismatch', async () => {
  const key = freshKey();
  const first = await repo().beginIdempotent('acc_a', key, 'fp1', t0);
  expect(first).toEqual({ outcome: 'started', lease: expect.any(String) });
  expect(await repo().beginIdempotent('acc_a', key, 'fp1', at(1))).toEqual({ outcome: 'in_progress' });
  expect(await repo().beginIdempotent('acc_a', key, 'fp2', at(1))).toEqual({ outcome: 'mismatch' });
  // Keys are per account.
  expect((await repo().beginIdempotent('acc_b', key, 'fp2', at(1))).outcome).toBe('started');
});

test('a stored answer replays for 24 hours, then the key is free again', async () => {
  const key = freshKey();
  const { lease } = (await repo().beginIdempotent('acc_a', key, 'fp', t0)) as { lease: string };
  await repo().finishIdempotent('acc_a', key, lease, { status: 202, body: '{"ok":true}' }, at(5));
  expect(await repo().beginIdempotent('acc_a', key, 'fp', at(6))).toEqual({ outcome: 'replay', status: 202, body: '{"ok":true}' });
  expect(await repo().beginIdempotent('acc_a', key, 'other', at(6))).toEqual({ outcome: 'mismatch' });
  const justBefore = at(5 + IDEMPOTENCY_TTL_SEC - 1);
  expect((await repo().beginIdempotent('acc_a', key, 'fp', justBefore)).outcome).toBe('replay');
  // Past 24 h (whether or not the TTL sweep has removed it yet): a new request, even another one.
  expect((await repo().beginIdempotent('acc_a', key, 'other', at(5 + IDEMPOTENCY_TTL_SEC))).outcome).toBe('started');
});

test('a freed key (the request failed) is taken by the next request', async () => {
  const key = freshKey();
  const { lease } = (await repo().beginIdempotent('acc_a', key, 'fp', t0)) as { lease: string };
  await repo().finishIdempotent('acc_a', key, lease, undefined, at(1));
  expect((await repo().beginIdempotent('acc_a', key, 'fp', at(2))).outcome).toBe('started');
});

test('a lease that is renewed holds; one that is not is taken over, and the old holder can no longer finish', async () => {
  const key = freshKey();
  const { lease } = (await repo().beginIdempotent('acc_a', key, 'fp', t0)) as { lease: string };
  // Renewed before it runs out: still in progress after the first lease would have ended.
  expect(await repo().renewIdempotent('acc_a', key, lease, at(IDEMPOTENCY_LEASE_SEC - 1))).toBe(true);
  expect(await repo().beginIdempotent('acc_a', key, 'fp', at(IDEMPOTENCY_LEASE_SEC + 1))).toEqual({ outcome: 'in_progress' });
  // Its gateway stopped: once the lease has run out, the next request takes the key.
  const later = at(2 * IDEMPOTENCY_LEASE_SEC);
  const taken = (await repo().beginIdempotent('acc_a', key, 'fp', later)) as { outcome: string; lease: string };
  expect(taken.outcome).toBe('started');
  expect(taken.lease).not.toBe(lease);
  expect(await repo().renewIdempotent('acc_a', key, lease, later)).toBe(false);
  await repo().finishIdempotent('acc_a', key, lease, { status: 200, body: 'stale' }, later);
  await repo().finishIdempotent('acc_a', key, taken.lease, { status: 200, body: 'new' }, later);
  expect(await repo().beginIdempotent('acc_a', key, 'fp', at(2 * IDEMPOTENCY_LEASE_SEC + 1))).toEqual({
    outcome: 'replay',
    status: 200,
    body: 'new',
  });
});

test('concurrent first requests: exactly one takes the key', async () => {
  const key = freshKey();
  const results = await Promise.all(Array.from({ length: 8 }, () => repo().beginIdempotent('acc_c', key, 'fp', t0)));
  expect(results.filter((r) => r.outcome === 'started')).toHaveLength(1);
  expect(results.filter((r) => r.outcome === 'in_progress')).toHaveLength(7);
});
