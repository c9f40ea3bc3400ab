// How a queued job reaches a worker at once. The jobs collection is the durable queue itself
// (pending jobs, claimed atomically with a lease); this channel only dispatches: a JetStream
// work-queue stream when NATS is configured (each message to one worker replica), the in-process
// bus otherwise. A message lost or sent twice costs nothing: claims are atomic, and workers also
// look for pending jobs every few seconds.
import { fromBinary, toBinary, create } from '@bufbuild/protobuf';
import type { EventBus, Subscription } from '@media/eventbus';
import { JobQueuedSchema } from '@media/proto/media/events/v1/events_pb.js';
import { Events } from '@media/platform';

export interface Dispatch {
  send(jobId: string, accountId: string): Promise<void>;
  onJob(handler: (jobId: string) => Promise<void>): Promise<Subscription>;
}

const WORK_QUEUE = { stream: 'MEDIA_JOBS', subject: 'jobs.queue.async' };
const DURABLE = 'jobs-workers';

export async function openDispatch(bus: EventBus): Promise<Dispatch> {
  const encode = (jobId: string, accountId: string) => toBinary(JobQueuedSchema, create(JobQueuedSchema, { jobId, accountId }));
  const decode = (data: Uint8Array) => fromBinary(JobQueuedSchema, data).jobId;
  if (bus.createWorkQueue) {
    const queue = await bus.createWorkQueue(WORK_QUEUE.stream, WORK_QUEUE.subject);
    return {
      send: (jobId, accountId) => queue.publish(WORK_QUEUE.subject, encode(jobId, accountId), { msgId: `queued:${jobId}` }),
      onJob: (handler) => queue.consume(DURABLE, (msg) => handler(decode(msg.data)), { ackWaitMs: 30_000 }),
    };
  }
  return {
    send: (jobId, accountId) => bus.publish(Events.jobQueued.subject, encode(jobId, accountId), { msgId: `queued:${jobId}` }),
    onJob: (handler) => bus.subscribe(Events.jobQueued.subject, (msg) => handler(decode(msg.data)), { durable: DURABLE }),
  };
}
