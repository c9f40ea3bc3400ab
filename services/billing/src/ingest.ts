// Charge events -> usage rows. Idempotent by request_id through the store (the row's _id), not
// through the bus's msgId window: a redelivery, a republish with another msgId or a second
// Billing replica all end in the same single row.
import type { EventBus, Subscription } from '@media/eventbus';
import { Events, metrics, subscribeEvent, type Logger } from '@media/platform';
import type { BillingRepository } from './domain/ports.js';
import { rowFromCharge, type UsageCharged } from './domain/charge.js';
import { hourOf } from './domain/quota.js';

/** Billing replicas share this durable consumer: each charge is handled by one of them. */
export const USAGE_DURABLE = 'billing-usage';

/**
 * A store outage must not lose a charge: retry for hours (the last backoff repeats) rather than
 * the bus default of five quick attempts. The stream keeps events for a week.
 */
export const USAGE_REDELIVERY = { maxDeliver: 1000, backoffMs: [1000, 5000, 15_000, 60_000] };

export interface IngestDeps {
  repo: Pick<BillingRepository, 'insert' | 'markHour'>;
  logger: Logger;
}

export function createUsageIngestor(deps: IngestDeps) {
  /** Resolves = ack; throws (store failure) = redelivered later. */
  return async function ingest(event: UsageCharged): Promise<void> {
    const parsed = rowFromCharge(event);
    if ('problem' in parsed) {
      deps.logger.error({ chargedRequestId: event.requestId, problem: parsed.problem }, 'charge event dropped: malformed');
      return;
    }
    const inserted = await deps.repo.insert(parsed.row);
    // Also for a row already there: the delivery that stored it may have stopped before this.
    await deps.repo.markHour(parsed.row.accountId, hourOf(parsed.row.completedAt));
    if (inserted) {
      metrics.charges.inc();
      metrics.chargedGbSeconds.inc(parsed.row.gbSec);
    } else deps.logger.info({ chargedRequestId: parsed.row.requestId }, 'charge event already recorded');
  };
}

export function subscribeUsage(bus: EventBus, deps: IngestDeps): Promise<Subscription> {
  const ingest = createUsageIngestor(deps);
  return subscribeEvent(bus, Events.usageCharged, (e) => ingest(e), { durable: USAGE_DURABLE, ...USAGE_REDELIVERY });
}
