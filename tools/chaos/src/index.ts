// The chaos run as a library: `npm run chaos` (main.ts) and its tests.
export { runChaos, CHAOS_ENV, SETTLE_BOUND_MS, type ChaosOptions, type ChaosResult } from './run.js';
export { printable, jsonReport } from './report.js';
export { planFaults, FAULT_KINDS, type FaultKind, type PlannedFault } from './faults.js';
export { checkAll } from './invariants/index.js';
export { seeded } from './random.js';
export type * from './record.js';
