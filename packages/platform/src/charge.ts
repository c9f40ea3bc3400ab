// A request's charge, published once for Billing: Jobs (tasks) and Probe (probes) both charge
// this way. The bus drops a second publish with the same id within its duplicate window, so a
// step retried after an outage never charges twice.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { EventBus } from '@media/eventbus';
import type { UsageChargedSchema } from '@media/proto/media/events/v1/events_pb.js';
import { Events, publishEvent } from './events.js';
import { toTimestamp } from './time.js';

export type Charge = MessageInitShape<typeof UsageChargedSchema> & { requestId: string };

/** Publishes the charge keyed by its request id; completedAt defaults to now. */
export function publishCharge(bus: EventBus, charge: Charge): Promise<void> {
  return publishEvent(bus, Events.usageCharged, { completedAt: toTimestamp(new Date()), ...charge }, `charge:${charge.requestId}`);
}
