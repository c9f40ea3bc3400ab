// Stage 6: the run's usage (ffmpeg's wall time, the bytes in and out) charged once: one
// usage_charged event keyed by the job id, so a redelivered or repeated charge is one row in Billing.
import type { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import type { EventBus } from '@media/eventbus';
import { computeUsage, type RunResult, type UsageFigures } from '@media/media';
import { publishCharge, toTimestamp } from '@media/platform';
import type { Principal } from '../job-doc.js';
import type { Persist } from './store-outputs.js';

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
  await req.persist(() =>
    publishCharge(deps.bus, {
      requestId: jobId,
      accountId: who.accountId,
      keyId: who.keyId,
      completedAt,
      usage,
      amountUsd,
      kind: req.kind,
    }),
  );
  return { usage, amountUsd };
}
