// Replicas per component: `replicas` of each but the console, overridden per component by
// `--replicas-of` (the scaling benchmarks' 1-against-2), with bad counts and names refused.
import { parseReplicasOf, replicaCounts } from '../src/replicas.js';

test('replicas of every component, the console once, overrides by name', () => {
  expect(replicaCounts(2)).toEqual({ auth: 2, billing: 2, storage: 2, probe: 2, jobs: 2, gateway: 2, console: 1 });
  expect(replicaCounts(2, { jobs: 1, gateway: 3 })).toEqual({ auth: 2, billing: 2, storage: 2, probe: 2, jobs: 1, gateway: 3, console: 1 });
});

test('--replicas-of parses component=count pairs', () => {
  expect(parseReplicasOf('')).toEqual({});
  expect(parseReplicasOf('jobs=1,gateway=2')).toEqual({ jobs: 1, gateway: 2 });
});

test('counts out of range, unknown components and the console are refused', () => {
  expect(() => replicaCounts(0)).toThrow('replicas must be 1 to 16, got 0');
  expect(() => replicaCounts(2, { jobs: 17 })).toThrow('replicas of jobs must be 1 to 16, got 17');
  expect(() => parseReplicasOf('jobs=0')).toThrow('replicas of jobs must be 1 to 16, got 0');
  expect(() => parseReplicasOf('worker=2')).toThrow('no component worker to scale');
  expect(() => parseReplicasOf('console=2')).toThrow('no component console to scale');
  expect(() => parseReplicasOf('jobs:2')).toThrow('--replicas-of wants component=count pairs');
});
