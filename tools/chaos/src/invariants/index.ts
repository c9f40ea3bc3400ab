// Every invariant over a run's data.
import type { RunData } from '../record.js';
import { checkAnswers } from './answers.js';
import { checkCharges } from './charges.js';
import { checkFiles } from './files.js';
import { checkJobs } from './jobs.js';
import { checkLimits } from './limits.js';
import { checkRecovery } from './recovery.js';
import { verdict, type Verdict } from './verdict.js';
import { checkWebhooks } from './webhooks.js';

export interface CheckContext {
  gateways: number;
  /** The gateways' AUTH_RATE_SYNC_MS. */
  rateSyncMs: number;
}

export function checkAll(data: RunData, ctx: CheckContext): Verdict[] {
  return [
    checkJobs(data),
    checkCharges(data),
    checkWebhooks(data),
    checkFiles(data),
    checkAnswers(data.calls, data.faults),
    checkLimits(data.limits, data.webhooks, ctx.gateways, ctx.rateSyncMs),
    checkRecovery(data.calls, data.faults, data.startedMs, data.loadEndMs),
    verdict('no process crashed on its own', `${data.crashes.length} crashes`, data.crashes, { crashes: data.crashes.length }),
  ];
}

export type { Verdict } from './verdict.js';
