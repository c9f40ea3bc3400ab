// Stage 6: the run's usage (ffmpeg's wall time, the bytes in and out) charged once: one
// usage_charged event keyed by the job id, so a redelivered or repeated charge is one row in Billing.
import type { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import type { EventBus } from '@media/eventbus';
import { computeUsage, type RunResult, type UsageFigures } from '@media/media';
import { publishCharge, toTimestamp } from '@media/platform';
import type { Principal } from '../job-doc.js';
import type { Persist } from './store-outputs.js';

/**
 * Test-only failpoint, off by default, never for a deployment: MEDIA_FAILPOINT_DOUBLE_CHARGE=1
 * publishes every charge a second time under another request id, as a charge not keyed by its
 * request would be after a retry. The chaos run's fault-catch test (tools/chaos) sets it to show
 * that the run reports a doubled charge. Read here and nowhere else.
 */
const DOUBLE_CHARGE_FAILPOINT = process.env.MEDIA_FAILPOINT_DOUBLE_CHARGE === '1';

export interface ChargeDeps {
  bus: EventBus;
}

export interface ChargeRequest {
  jobId: string;
  who: Principal;
  kind: JobKind;
  inputBytes: number;
  ran: RunResult;
  persist: Persist;
}

export interface Charged {
  usage: UsageFigures;
  amountUsd: number;
}

export async function charge(deps: ChargeDeps, req: ChargeRequest): Promise<Charged> {
  const { jobId, who, ran } = req;
  const outputBytes = ran.outputs.reduce((a, o) => a + o.size, 0);
  const { usage, amountUsd } = computeUsage(req.inputBytes, outputBytes, ran.durationMs);
  const completedAt = toTimestamp(new Date());
  const event = { requestId: jobId, accountId: who.accountId, keyId: who.keyId, completedAt, usage, amountUsd, kind: req.kind };
  await req.persist(() => publishCharge(deps.bus, event));
  if (DOUBLE_CHARGE_FAILPOINT) await req.persist(() => publishCharge(deps.bus, { ...event, requestId: `${jobId}_again` }));
  return { usage, amountUsd };
}
