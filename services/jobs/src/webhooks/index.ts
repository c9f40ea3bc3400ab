// Webhook delivery for async jobs: submit-time URL check, durable queue, signed attempts with
// retries. The Jobs service wires it: check() on submit, enqueue() when a job finishes.
export { createWebhookDeliverer } from './deliverer.js';
export { WEBHOOK_DELIVERIES } from './repository.js';
export { DEFAULT_SCHEDULE_MS } from './schedule.js';
export { WEBHOOK_USER_AGENT, computeSignature, secretKey, signedHeaders } from './signing.js';
export type {
  DeliveryState,
  WebhookBody,
  WebhookDeliverer,
  WebhookDeliveryDeps,
  WebhookDeliveryStatus,
} from './types.js';
