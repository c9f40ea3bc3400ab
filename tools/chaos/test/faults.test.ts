// The fault plan: every kind at least once even in a 3-minute run, inside the fault window, in
// time order, the same for the same seed.
import { FAULT_KINDS, FAULT_WINDOW, planFaults } from '../src/faults.js';
import { seeded } from '../src/random.js';

const processes = [
  ...['nats-1', 'nats-2', 'nats-3'].map((name) => ({ name, kind: 'nats' })),
  { name: 'mongo', kind: 'mongo' },
  { name: 's3', kind: 's3' },
  { name: 'haproxy', kind: 'haproxy' },
  ...['auth', 'billing', 'storage', 'probe', 'jobs', 'gateway'].flatMap((kind) => [1, 2].map((i) => ({ name: `${kind}-${i}`, kind }))),
  { name: 'console-1', kind: 'console' },
];

test.each([3, 10])('a %i-minute plan has every kind, in the window, in order', (minutes) => {
  const durationMs = minutes * 60_000;
  const plan = planFaults(seeded(7), durationMs, processes);
  expect(new Set(plan.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
  expect(plan.map((f) => f.atMs)).toEqual([...plan.map((f) => f.atMs)].sort((a, b) => a - b));
  for (const f of plan) {
    expect(f.atMs).toBeGreaterThanOrEqual(durationMs * FAULT_WINDOW.from);
    expect(f.atMs).toBeLessThan(durationMs * FAULT_WINDOW.to);
    expect(f.targets.length).toBeGreaterThan(0);
  }
  const byKind = Object.fromEntries(plan.map((f) => [f.kind, f]));
  expect(byKind['kill-all-jobs']!.targets).toEqual(['jobs-1', 'jobs-2']);
  expect(byKind['restart-nats']!.targets).toEqual(['nats-1', 'nats-2', 'nats-3']);
  expect(byKind['pause-db']!.holdMs).toBeGreaterThanOrEqual(10_000);
  expect(byKind['pause-db']!.holdMs).toBeLessThanOrEqual(20_000);
  // Replica kills hit the chart's components only, never the single-instance infrastructure.
  for (const f of plan.filter((p) => p.kind === 'kill-replica'))
    expect(f.targets[0]).toMatch(/^(auth|billing|storage|probe|jobs|gateway|console)-\d$/);
});

test('a 10-minute plan has more replica kills; the same seed gives the same plan', () => {
  const plan = planFaults(seeded(7), 600_000, processes);
  expect(plan.length).toBeGreaterThan(FAULT_KINDS.length);
  expect(planFaults(seeded(7), 600_000, processes)).toEqual(plan);
  expect(planFaults(seeded(8), 600_000, processes)).not.toEqual(plan);
});
