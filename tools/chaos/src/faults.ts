// The faults: planned from the seed over the middle of the run (every kind at least once, even in
// a 3-minute run; more replica kills in longer ones), then injected one after another through the
// cluster handle, each logged with its time.
import type { Cluster } from '@media/tool-cluster';
import type { Random } from './random.js';
import type { FaultRecord } from './record.js';

export const FAULT_KINDS = [
  'kill-replica', // kill -9 of a random replica of any service, the gateway or the console; restarted after a few seconds
  'kill-all-jobs', // kill -9 of every Jobs replica at once, then restarted
  'kill-nats-node', // kill -9 of one NATS node (the other two keep quorum), restarted
  'restart-nats', // all three NATS nodes stopped and started again
  'pause-db', // SIGSTOP of the database for 10-20 s, then SIGCONT
  'pause-store', // SIGSTOP of the S3 store for 10-20 s, then SIGCONT
  'drain-gateway', // SIGTERM of one gateway (it drains), restarted
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The processes a replica kill may hit: the chart's components (not the single-instance infrastructure). */
export const APP_KINDS = ['auth', 'billing', 'storage', 'probe', 'jobs', 'gateway', 'console'];

/** The faults happen between these fractions of the load's duration: a baseline before, a recovery after. */
export const FAULT_WINDOW = { from: 0.1, to: 0.65 } as const;
/** One fault per this much of the window at least (beyond one of each kind, replica kills). */
const SPACING_MS = 30_000;

export interface PlannedFault {
  kind: FaultKind;
  /** From the load's start. */
  atMs: number;
  targets: string[];
  /** How long the fault lasts before the repair (restart, SIGCONT). */
  holdMs: number;
}

export interface ProcessRef {
  name: string;
  kind: string;
}

export function planFaults(rng: Random, durationMs: number, processes: ProcessRef[]): PlannedFault[] {
  const from = durationMs * FAULT_WINDOW.from;
  const window = durationMs * (FAULT_WINDOW.to - FAULT_WINDOW.from);
  const count = Math.max(FAULT_KINDS.length, Math.floor(window / SPACING_MS));
  const kinds: FaultKind[] = [...FAULT_KINDS, ...Array<FaultKind>(count - FAULT_KINDS.length).fill('kill-replica')];
  const named = (kind: string) => processes.filter((p) => p.kind === kind).map((p) => p.name);
  const apps = processes.filter((p) => APP_KINDS.includes(p.kind)).map((p) => p.name);
  return rng.shuffle(kinds).map((kind, i): PlannedFault => {
    const atMs = Math.round(from + (i * window) / count);
    switch (kind) {
      case 'kill-replica':
        return { kind, atMs, targets: [rng.pick(apps)], holdMs: rng.int(3000, 6000) };
      case 'kill-all-jobs':
        return { kind, atMs, targets: named('jobs'), holdMs: rng.int(3000, 5000) };
      case 'kill-nats-node':
        return { kind, atMs, targets: [rng.pick(named('nats'))], holdMs: rng.int(4000, 8000) };
      case 'restart-nats':
        return { kind, atMs, targets: named('nats'), holdMs: 0 };
      case 'pause-db':
        return { kind, atMs, targets: named('mongo'), holdMs: rng.int(10_000, 20_000) };
      case 'pause-store':
        return { kind, atMs, targets: named('s3'), holdMs: rng.int(10_000, 20_000) };
      default:
        return { kind, atMs, targets: [rng.pick(named('gateway'))], holdMs: rng.int(2000, 4000) }; // drain-gateway
    }
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Injects one fault and repairs it. */
async function inject(cluster: Cluster, f: PlannedFault): Promise<void> {
  if (!f.targets.length) throw new Error(`no process to target for ${f.kind} (an external MONGODB_URL?)`);
  const all = (fn: (name: string) => Promise<void> | void) => Promise.all(f.targets.map(async (n) => fn(n)));
  switch (f.kind) {
    case 'kill-replica':
    case 'kill-all-jobs':
    case 'kill-nats-node':
      await all((n) => cluster.kill(n, 'SIGKILL'));
      await sleep(f.holdMs);
      await all((n) => cluster.restart(n));
      return;
    case 'restart-nats':
      await all((n) => cluster.kill(n, 'SIGTERM'));
      await all((n) => cluster.restart(n));
      return;
    case 'pause-db':
    case 'pause-store':
      await all((n) => cluster.pause(n));
      await sleep(f.holdMs);
      await all((n) => cluster.resume(n));
      return;
    case 'drain-gateway':
      // As Kubernetes stops a pod: out of the balancer, then SIGTERM (cluster.drain).
      await all((n) => cluster.drain(n));
      await sleep(f.holdMs);
      await all((n) => cluster.restart(n));
      return;
  }
}

/** Injects the plan in order, each at its time (or when the previous one is repaired, if later). */
export async function runFaults(
  cluster: Cluster,
  plan: PlannedFault[],
  loadStartMs: number,
  log: (line: string) => void,
  records: FaultRecord[],
  stopped: () => boolean,
): Promise<void> {
  for (const f of plan) {
    const wait = loadStartMs + f.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    if (stopped()) return;
    const rec: FaultRecord = { kind: f.kind, targets: f.targets, startMs: Date.now(), endMs: 0 };
    records.push(rec);
    log(
      `fault  +${((rec.startMs - loadStartMs) / 1000).toFixed(1)}s ${f.kind} ${f.targets.join(',')}${f.holdMs ? ` for ${(f.holdMs / 1000).toFixed(1)} s` : ''}`,
    );
    try {
      await inject(cluster, f);
    } catch (err) {
      rec.error = (err as Error).message.split('\n')[0];
      log(`fault  ${f.kind}: ${rec.error}`);
    }
    rec.endMs = Date.now();
    log(`fault  +${((rec.endMs - loadStartMs) / 1000).toFixed(1)}s ${f.kind} repaired`);
  }
}
