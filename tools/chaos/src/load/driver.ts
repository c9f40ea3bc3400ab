// The steady mixed load: operations picked at random (seeded) by weight, started at a steady pace,
// at most `concurrency` in flight, until the deadline or the operation budget.
import { asyncJob } from './async.js';
import type { LoadAccount, LoadContext } from './context.js';
import { download, upload } from './files.js';
import { probe } from './probe.js';
import { syncTask } from './sync.js';
import { usageExport } from './usage.js';

type Operation = (ctx: LoadContext, a: LoadAccount) => Promise<void>;

/** The mix, by weight. */
export const MIX: [Operation, number][] = [
  [syncTask, 3],
  [asyncJob, 3],
  [probe, 2],
  [upload, 2],
  [download, 2],
  [usageExport, 1],
];

export interface DriveOptions {
  /** Operations started per second (all accounts). */
  ratePerSec: number;
  concurrency: number;
  untilMs: number;
  maxOperations: number;
}

function pickOperation(ctx: LoadContext): Operation {
  const total = MIX.reduce((n, [, w]) => n + w, 0);
  let r = ctx.rng.next() * total;
  for (const [op, w] of MIX) {
    r -= w;
    if (r < 0) return op;
  }
  return MIX[0]![0];
}

/** Resolves once the deadline or budget is reached and every operation started has ended. */
export async function drive(ctx: LoadContext, o: DriveOptions): Promise<number> {
  const inFlight = new Set<Promise<void>>();
  const intervalMs = 1000 / o.ratePerSec;
  let started = 0;
  let nextAt = ctx.now();
  while (ctx.now() < o.untilMs && started < o.maxOperations) {
    if (inFlight.size >= o.concurrency) {
      await Promise.race(inFlight);
      continue;
    }
    const wait = nextAt - ctx.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    // Behind (every slot was busy): start from now, not in a burst to catch up.
    nextAt = Math.max(nextAt + intervalMs, ctx.now());
    const op = pickOperation(ctx);
    const account = ctx.rng.pick(ctx.accounts);
    const p: Promise<void> = op(ctx, account)
      .catch(() => {}) // every answer (or its lack) is already recorded by the client
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    started++;
  }
  await Promise.all(inFlight);
  return started;
}
