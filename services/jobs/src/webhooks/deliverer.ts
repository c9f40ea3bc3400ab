// The worker: a timer-driven loop that claims due deliveries, runs attempts (a few at a time) and
// records their outcomes. Deliveries live in the store, so a restart or another replica carries
// on where this one stopped.
import { randomUUID } from 'node:crypto';
import { checkPublicHttpsUrl, describeUrl, WEBHOOK_TIMEOUT_MS } from '@media/media';
import { contextFrom, DomainError, Errors, inSpan, type Logger, metrics, spanFailed, type TraceCarrier } from '@media/platform';
import { type AttemptContext, runAttempt } from './attempt.js';
import { type Claim, DeliveryRepository, type Outcome } from './repository.js';
import {
  DEFAULT_CONCURRENCY,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_RETAIN_MS,
  DEFAULT_SCHEDULE_MS,
  DEFAULT_SECRET_TTL_MS,
  checkSchedule,
} from './schedule.js';
import { SecretCache } from './secrets.js';
import type { WebhookBody, WebhookDeliverer, WebhookDeliveryDeps, WebhookDeliveryStatus } from './types.js';

export async function createWebhookDeliverer(deps: WebhookDeliveryDeps): Promise<WebhookDeliverer> {
  const repo = await DeliveryRepository.open(deps.store, deps.retainMs ?? DEFAULT_RETAIN_MS);
  return new Deliverer(deps, repo);
}

class Deliverer implements WebhookDeliverer {
  /** Lease owner id: unique per deliverer, so replicas (and restarts) never mistake each other's claims. */
  private readonly owner = `whd_${randomUUID()}`;
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly ctx: AttemptContext;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private pumping: Promise<void> | null = null;
  /** Set when work may have arrived while a pump was already running. */
  private again = false;

  constructor(
    private readonly deps: WebhookDeliveryDeps,
    private readonly repo: DeliveryRepository,
  ) {
    this.now = deps.now ?? Date.now;
    this.logger = deps.logger;
    const attemptTimeoutMs = deps.attemptTimeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.ctx = {
      secrets: new SecretCache((id) => deps.getSecrets(id), deps.secretTtlMs ?? DEFAULT_SECRET_TTL_MS, this.now),
      allowlist: deps.allowlist,
      ...(deps.ca !== undefined ? { ca: deps.ca } : {}),
      ...(deps.resolver !== undefined ? { resolver: deps.resolver } : {}),
      scheduleMs: checkSchedule(deps.scheduleMs ?? DEFAULT_SCHEDULE_MS),
      attemptTimeoutMs,
      now: this.now,
    };
    this.pollIntervalMs = deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    // Covers the secret lookup and the attempt (each bounded by attemptTimeoutMs), with margin.
    this.leaseMs = deps.leaseMs ?? 2 * attemptTimeoutMs + 30_000;
    this.concurrency = Math.max(1, deps.concurrency ?? DEFAULT_CONCURRENCY);
  }

  async check(url: string): Promise<void> {
    try {
      await checkPublicHttpsUrl(url, {
        allowlist: this.deps.allowlist,
        ...(this.deps.resolver !== undefined ? { resolver: this.deps.resolver } : {}),
        signal: AbortSignal.timeout(this.ctx.attemptTimeoutMs),
      });
    } catch (err) {
      if (err instanceof Error && err.name === 'TimeoutError')
        throw Errors.invalidRequest('webhook_url host could not be resolved in time');
      // The URL check speaks of "URL"; a submission may carry URL inputs too, so name the field.
      if (err instanceof DomainError && err.status === 400) throw Errors.invalidRequest(`webhook_url is refused: ${err.message}`);
      throw err;
    }
  }

  async enqueue(d: { jobId: string; accountId: string; url: string; body: WebhookBody; trace?: TraceCarrier }): Promise<void> {
    const inserted = await this.repo.insert({
      jobId: d.jobId,
      accountId: d.accountId,
      url: d.url,
      body: JSON.stringify(d.body),
      now: new Date(this.now()),
      ...(d.trace ? { trace: d.trace } : {}),
    });
    if (inserted) this.kick();
    else this.logger.debug({ jobId: d.jobId }, 'webhook already enqueued for this job');
  }

  status(jobId: string): Promise<WebhookDeliveryStatus | null> {
    return this.repo.status(jobId);
  }

  backlog(): Promise<number> {
    return this.repo.countPending();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // Let attempts in flight finish and record their outcome (each is bounded by its timeout).
    while (this.pumping || this.inFlight.size > 0) {
      await Promise.allSettled([this.pumping, ...this.inFlight]);
    }
  }

  /** Looks for due work soon (after an enqueue, or when an attempt frees a slot). */
  private kick(): void {
    if (!this.running) return;
    if (this.pumping) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.pumping = this.pump().finally(() => {
        this.pumping = null;
        // Waits a full poll interval when nothing was due: no busy loop.
        this.schedule(this.again ? 0 : this.pollIntervalMs);
        this.again = false;
      });
    }, ms);
    // Never keeps the process alive on its own.
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    try {
      while (this.running && this.inFlight.size < this.concurrency) {
        const claim = await this.repo.claimDue(this.owner, new Date(this.now()), this.leaseMs);
        if (!claim) return;
        const run: Promise<void> = this.attempt(claim).finally(() => {
          this.inFlight.delete(run);
          this.kick();
        });
        this.inFlight.add(run);
      }
    } catch (err) {
      this.logger.error({ err }, 'webhook: looking for due deliveries failed');
    }
  }

  private async attempt(claim: Claim): Promise<void> {
    let outcome: Outcome;
    try {
      // In the trace of the job it reports on, however much later it runs.
      const attributes = { 'media.job_id': claim.doc._id, 'media.attempt': claim.attempt };
      outcome = await inSpan(
        'webhook attempt',
        attributes,
        async () => {
          const o = await runAttempt(this.ctx, claim);
          if (o.kind !== 'delivered') spanFailed(o.error ?? 'not delivered');
          return o;
        },
        contextFrom(claim.doc.trace),
      );
    } catch (err) {
      // runAttempt maps every expected failure; anything else is a bug, but still bounded.
      this.logger.error({ err, jobId: claim.doc._id }, 'webhook attempt crashed');
      outcome = { kind: 'retry', at: new Date(this.now() + this.pollIntervalMs), status: null, error: 'internal error' };
    }
    try {
      const recorded = await this.repo.record(claim, outcome, new Date(this.now()));
      this.log(claim, outcome, recorded);
    } catch (err) {
      // The lease will lapse and the next attempt will run then.
      this.logger.error({ err, jobId: claim.doc._id }, 'webhook: recording an attempt failed');
    }
  }

  private log(claim: Claim, outcome: Outcome, recorded: boolean): void {
    const fields = { jobId: claim.doc._id, accountId: claim.doc.accountId, attempt: claim.attempt, url: safeUrl(claim.doc.url) };
    if (!recorded) {
      this.logger.warn({ ...fields, outcome: outcome.kind }, 'webhook attempt outlived its lease; outcome not recorded');
      return;
    }
    metrics.webhookDeliveries.inc({ outcome: outcome.kind });
    if (outcome.kind === 'delivered') this.logger.info({ ...fields, status: outcome.status }, 'webhook delivered');
    else if (outcome.kind === 'retry')
      this.logger.warn(
        { ...fields, status: outcome.status, error: outcome.error, nextAttemptAt: outcome.at },
        'webhook attempt failed; will retry',
      );
    else this.logger.warn({ ...fields, status: outcome.status, error: outcome.error }, 'webhook delivery failed; no attempts left');
  }
}

/** No query string in logs: it may carry the receiver's own token. */
function safeUrl(url: string): string {
  try {
    return describeUrl(new URL(url));
  } catch {
    return '(invalid URL)';
  }
}
