// Webhook secret rules: Standard Webhooks' format, and what a rotation keeps signing for how long.
import type { AccountDoc } from '../src/domain/ports.js';
import {
  afterRotation,
  graceProblem,
  lastValidUntil,
  MAX_GRACE_SEC,
  newWebhookSecret,
  previousInGrace,
} from '../src/domain/webhook-secrets.js';

const NOW = new Date('2026-01-01T00:00:00Z');
const at = (sec: number) => new Date(NOW.getTime() + sec * 1000);
const account = (previous?: AccountDoc['previousWebhookSecrets']): AccountDoc => ({
  _id: 'acc_1',
  status: 'active',
  createdAt: NOW,
  webhookSecret: 'whsec_current',
  ...(previous ? { previousWebhookSecrets: previous } : {}),
});

test('a new secret is whsec_ and 32 random bytes in base64, different each time', () => {
  const a = newWebhookSecret();
  expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
  expect(newWebhookSecret()).not.toBe(a);
});

test('a rotation keeps the replaced secret for the grace period, and earlier ones still in theirs', () => {
  const rotated = afterRotation(
    account([
      { secret: 'whsec_older', until: at(100) },
      { secret: 'whsec_gone', until: at(0) },
    ]),
    3600,
    NOW,
  );
  expect(rotated).toEqual([
    { secret: 'whsec_current', until: at(3600) },
    { secret: 'whsec_older', until: at(100) },
  ]);
  expect(lastValidUntil(rotated)).toEqual(at(3600));
});

test('a grace period of 0 ends the replaced secret and every earlier one at once', () => {
  expect(afterRotation(account([{ secret: 'whsec_older', until: at(100) }]), 0, NOW)).toEqual([]);
  expect(lastValidUntil([])).toBeUndefined();
});

test('rotations in a row keep at most three previous secrets, the newest', () => {
  let doc = account();
  for (let i = 0; i < 5; i++) {
    doc = { ...doc, previousWebhookSecrets: afterRotation(doc, 3600, NOW), webhookSecret: `whsec_${i}` };
  }
  expect(doc.previousWebhookSecrets!.map((p) => p.secret)).toEqual(['whsec_3', 'whsec_2', 'whsec_1']);
});

test('only previous secrets whose grace period has not ended still sign', () => {
  const doc = account([
    { secret: 'whsec_a', until: at(1) },
    { secret: 'whsec_b', until: at(0) },
  ]);
  expect(previousInGrace(doc, NOW).map((p) => p.secret)).toEqual(['whsec_a']);
  expect(previousInGrace(doc, at(1))).toEqual([]);
  expect(previousInGrace(account(), NOW)).toEqual([]);
});

test('the grace period is whole seconds from 0 to 7 days', () => {
  expect(graceProblem(0)).toBeUndefined();
  expect(graceProblem(MAX_GRACE_SEC)).toBeUndefined();
  for (const bad of [-1, 1.5, MAX_GRACE_SEC + 1, Number.NaN])
    expect(graceProblem(bad)).toBe('The grace period must be a whole number of seconds from 0 to 604800 (7 days).');
});
