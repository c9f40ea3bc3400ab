// Typed events over the byte-level bus: one registry of subject -> protobuf schema.
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import type { EventBus, SubscribeOptions, Subscription, BusMessage } from '@media/eventbus';
import {
  AccountStatusChangedSchema,
  DirectoryExpiredSchema,
  JobQueuedSchema,
  PartsOfferedSchema,
  KeyRevokedSchema,
  UsageChargedSchema,
} from '@media/proto/media/events/v1/events_pb.js';

export interface EventType<D extends DescMessage> {
  subject: string;
  schema: D;
}

const event = <D extends DescMessage>(subject: string, schema: D): EventType<D> => ({ subject, schema });

export const Events = {
  keyRevoked: event('media.auth.key_revoked', KeyRevokedSchema),
  accountStatusChanged: event('media.auth.account_status_changed', AccountStatusChangedSchema),
  directoryExpired: event('media.storage.directory_expired', DirectoryExpiredSchema),
  jobQueued: event('media.jobs.job_queued', JobQueuedSchema),
  partsOffered: event('media.jobs.parts_offered', PartsOfferedSchema),
  usageCharged: event('media.billing.usage_charged', UsageChargedSchema),
};

export async function publishEvent<D extends DescMessage>(
  bus: EventBus,
  type: EventType<D>,
  init: MessageInitShape<D>,
  msgId?: string,
): Promise<void> {
  await bus.publish(type.subject, toBinary(type.schema, create(type.schema, init)), msgId ? { msgId } : undefined);
}

export function subscribeEvent<D extends DescMessage>(
  bus: EventBus,
  type: EventType<D>,
  handler: (event: MessageShape<D>, meta: BusMessage) => Promise<void>,
  options?: SubscribeOptions,
): Promise<Subscription> {
  return bus.subscribe(type.subject, (msg) => handler(fromBinary(type.schema, msg.data), msg), options);
}
