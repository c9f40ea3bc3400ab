// Test helpers: charge events as Jobs and Probe publish them, and a wait for rows to land.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { UsageChargedSchema } from '@media/proto/media/events/v1/events_pb.js';
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type { EventBus } from '@media/eventbus';
import { Events, newId, publishEvent, toTimestamp } from '@media/platform';

export type ChargeInit = MessageInitShape<typeof UsageChargedSchema>;

export interface ChargeSpec {
  requestId?: string;
  accountId: string;
  keyId: string;
  completedAt: Date;
  gbSec: number;
  amountUsd: number;
  kind?: JobKind;
}

/** A charge event's init, with the fields tests read back made concrete. */
export interface Charge {
  requestId: string;
  accountId: string;
  keyId: string;
  completedAt: Timestamp | undefined;
  usage: { timeSec: number; inputSizeGb: number; outputSizeGb: number; gbSec: number };
  amountUsd: number;
  kind: JobKind;
}

export function chargeEvent(c: ChargeSpec): Charge {
  return {
    requestId: c.requestId ?? newId('job_'),
    accountId: c.accountId,
    keyId: c.keyId,
    completedAt: toTimestamp(c.completedAt),
    usage: { timeSec: 1, inputSizeGb: c.gbSec, outputSizeGb: 0, gbSec: c.gbSec },
    amountUsd: c.amountUsd,
    kind: c.kind ?? JobKind.SYNC,
  };
}

/** Publishes as the charging services do: msgId "charge:<request_id>" unless told otherwise. */
export async function publishCharge(bus: EventBus, init: ChargeInit, msgId = `charge:${init.requestId}`): Promise<void> {
  await publishEvent(bus, Events.usageCharged, init, msgId);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` returns a value that is not undefined (rows are stored asynchronously). */
export async function waitFor<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The export's order: completed_at, then request_id. */
export function exportOrder(charges: Charge[]): string[] {
  const ms = (c: Charge) => Number(c.completedAt!.seconds) * 1000 + Math.floor(c.completedAt!.nanos / 1e6);
  return [...charges].sort((a, b) => ms(a) - ms(b) || (a.requestId < b.requestId ? -1 : 1)).map((c) => c.requestId);
}
