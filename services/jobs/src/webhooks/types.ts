// The webhook module's shapes: the documented body a receiver gets, the dependencies the Jobs
// service wires in, and the persisted delivery record.
import type { DocStore } from '@media/docstore';
import type { CidrList, Resolver } from '@media/media';
import type { Logger, ResultItemJson, TraceCarrier, UsageJson } from '@media/platform';

/** The JSON body POSTed to webhook_url (documented in docs/api/webhooks.md). */
export interface WebhookBody {
  event: 'job.completed' | 'job.failed';
  job_id: string;
  status: 'completed' | 'failed';
  request_id: string;
  /** Completed jobs only. */
  result?: ResultItemJson[];
  usage?: UsageJson;
  amount_usd?: number;
  /** Failed jobs only. */
  error?: string;
  completed_at: string;
}

export interface WebhookDeliveryDeps {
  /** The Jobs service's own database; deliveries live in its 'webhook_deliveries' collection. */
  store: DocStore;
  /** The account's signing secrets, current first (AuthService.GetWebhookSecret). Cached briefly here. */
  getSecrets(accountId: string): Promise<string[]>;
  logger: Logger;
  /** URL_ALLOWLIST_CIDRS: addresses inside count as public (tests). */
  allowlist: CidrList;
  /** Extra trusted CA (PEM); tests only. */
  ca?: string;
  /** Injectable DNS for tests; the system resolver otherwise. */
  resolver?: Resolver;
  /** Delays before attempts 2..n; its length + 1 is the number of attempts. Default ~2 h over 6 attempts. */
  scheduleMs?: number[];
  /** One attempt: DNS, connect, TLS, send and the answer's headers. Default 10 s. */
  attemptTimeoutMs?: number;
  /** How often due deliveries are looked for. Default 1000 ms. */
  pollIntervalMs?: number;
  /** How long a claimed attempt is reserved for its replica. Default 2 x attemptTimeoutMs + 30 s. */
  leaseMs?: number;
  /** Attempts in flight at once per deliverer. Default 8. */
  concurrency?: number;
  /** How long a secret is reused before asking Auth again. Default 60 s. */
  secretTtlMs?: number;
  /** How long finished deliveries are kept (TTL index). Default 30 days. */
  retainMs?: number;
  now?: () => number;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One webhook per job: `_id` is the job id, which makes enqueue idempotent. */
export interface DeliveryDoc {
  _id: string;
  accountId: string;
  url: string;
  /** The body as sent, serialized once so every attempt carries the same bytes. */
  body: string;
  /** Attempts started so far (counted when claimed, so a crashed attempt still counts). */
  attempts: number;
  /** When the next attempt is due; while an attempt runs, when its lease lapses. */
  nextAttemptAt: Date;
  state: DeliveryState;
  /** The replica holding the current attempt, and until when; null when nobody does. */
  leaseOwner: string | null;
  leaseUntil: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Set once delivered or failed; the TTL index removes the record after it. */
  expiresAt: Date | null;
  /** The trace its attempts continue (the job's run), when tracing is on. */
  trace?: TraceCarrier;
  [key: string]: unknown;
}

/** What callers (and tests) may read about a delivery. */
export interface WebhookDeliveryStatus {
  jobId: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
}

export interface WebhookDeliverer {
  /** Validates at submit time (400 DomainError if not HTTPS/public). Makes no connection. */
  check(url: string): Promise<void>;
  /** Persists a delivery for a finished job (idempotent by jobId) and returns at once. */
  enqueue(d: { jobId: string; accountId: string; url: string; body: WebhookBody; trace?: TraceCarrier }): Promise<void>;
  /** The delivery's progress, or null when there is none for this job. */
  status(jobId: string): Promise<WebhookDeliveryStatus | null>;
  /** Deliveries neither delivered nor given up (media_webhook_backlog). */
  backlog(): Promise<number>;
  start(): void;
  /** Stops claiming and waits for attempts in flight (at most one attempt timeout). */
  stop(): Promise<void>;
}
