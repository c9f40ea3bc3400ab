// A charge event -> the usage row Billing keeps. The numbers are stored exactly as the charging
// service computed them (Jobs and Probe round gb_sec and amount_usd to 9 decimals); Billing never
// re-prices.
import type { MessageShape } from '@bufbuild/protobuf';
import type { UsageChargedSchema } from '@media/proto/media/events/v1/events_pb.js';
import { type JobKind, JobKindSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { enumNames, fromTimestamp } from '@media/platform';

export type UsageCharged = MessageShape<typeof UsageChargedSchema>;

export interface UsageRow {
  requestId: string;
  accountId: string;
  keyId: string;
  completedAt: Date;
  gbSec: number;
  amountUsd: number;
  /** sync, async or probe: kept for support questions, not exported. */
  kind: string;
}

const KINDS = enumNames<JobKind>(JobKindSchema);

const finiteNonNegative = (n: number | undefined): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;

/**
 * The row for a charge event, or why the event cannot be stored. A malformed event is a bug in
 * its publisher; redelivering it would never help, so the caller logs it and lets it go.
 */
export function rowFromCharge(e: UsageCharged): { row: UsageRow } | { problem: string } {
  const completedAt = fromTimestamp(e.completedAt);
  const gbSec = e.usage?.gbSec;
  if (!e.requestId) return { problem: 'no request_id' };
  if (!e.accountId) return { problem: 'no account_id' };
  if (!e.keyId) return { problem: 'no key_id' };
  if (!completedAt || Number.isNaN(completedAt.getTime())) return { problem: 'no valid completed_at' };
  if (!finiteNonNegative(gbSec)) return { problem: `gb_sec is not a non-negative number (${String(gbSec)})` };
  if (!finiteNonNegative(e.amountUsd)) return { problem: `amount_usd is not a non-negative number (${String(e.amountUsd)})` };
  return {
    row: {
      requestId: e.requestId,
      accountId: e.accountId,
      keyId: e.keyId,
      completedAt, // a Date: millisecond precision, as the export shows it
      gbSec,
      amountUsd: e.amountUsd,
      kind: KINDS.name(e.kind) ?? 'unspecified',
    },
  };
}
