// How many replicas of each component startCluster runs: `replicas` of every one but the console
// (one), unless named in `replicasOf` (`--replicas-of jobs=1,gateway=2`), as a chart's per-component
// replicaCount would. The scaling benchmarks start 1 and 2 of one component, the rest alike.
import { COMPONENTS, type Component } from './chart-env.js';

export const MAX_REPLICAS = 16;
const SCALABLE = COMPONENTS.filter((c) => c !== 'console');

function check(what: string, n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > MAX_REPLICAS) throw new Error(`${what} must be 1 to ${MAX_REPLICAS}, got ${n}`);
  return n;
}

/** Replicas per component; throws on a count out of range or a component that cannot be scaled. */
export function replicaCounts(replicas: number, replicasOf: Partial<Record<Component, number>> = {}): Record<Component, number> {
  check('replicas', replicas);
  for (const [name, n] of Object.entries(replicasOf)) {
    if (!(SCALABLE as string[]).includes(name)) throw new Error(`no component ${name} to scale; one of ${SCALABLE.join(', ')}`);
    check(`replicas of ${name}`, n);
  }
  return Object.fromEntries(COMPONENTS.map((c) => [c, c === 'console' ? 1 : (replicasOf[c] ?? replicas)])) as Record<Component, number>;
}

/** `jobs=1,gateway=2` (the --replicas-of flag) as replicaCounts' `replicasOf`. */
export function parseReplicasOf(flag: string): Partial<Record<Component, number>> {
  const out: Partial<Record<Component, number>> = {};
  for (const pair of flag.split(',').filter(Boolean)) {
    const m = /^([a-z]+)=(\d+)$/.exec(pair.trim());
    if (!m) throw new Error(`--replicas-of wants component=count pairs separated by commas, not ${pair}`);
    out[m[1] as Component] = Number(m[2]);
  }
  replicaCounts(1, out); // the same checks, at parse time
  return out;
}
