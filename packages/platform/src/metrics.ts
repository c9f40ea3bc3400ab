// Prometheus metrics (prom-client), one registry per process: `npm start` serves every service's
// on one listener, a service alone its own (ops-server.ts). Labels are bounded by design: routes
// as patterns, RPC and dependency names, outcomes; never an account, key, job, directory or path
// that holds one (per-account figures are the usage export's).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

let perRequest = true;
/** METRICS_ENABLED=false: the per-request metrics (HTTP, RPC) are not recorded (the bench's baseline). */
export function setMetricsRecording(on: boolean): void {
  perRequest = on;
}
export const recordsPerRequest = () => perRequest;
collectDefaultMetrics({ register: registry });

const registers = [registry];
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LONG_SECONDS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** Adds what several live sources report (each stack in a test process registers its own). */
function summed(sources: Set<() => Promise<number>>) {
  return async function collect(this: Gauge) {
    let total = 0;
    for (const source of sources) total += await source().catch(() => 0);
    this.set(total);
  };
}

const queuedSources = new Set<() => Promise<number>>();
const runningSources = new Set<() => Promise<number>>();
const webhookBacklogSources = new Set<() => Promise<number>>();
/** By volume (storage, jobs, probe): the latest registration of each wins. */
const headroomSources = new Map<string, () => Promise<number>>();

/** A counter in the process's registry. */
const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
  new Counter<L>({ name, help, labelNames, registers });

/** A histogram of durations in seconds in the process's registry. */
const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
  new Histogram<L>({ name, help, labelNames, buckets, registers });

/** A gauge that reports the sum of its live sources when scraped. */
const summedGauge = (name: string, help: string, sources: Set<() => Promise<number>>) =>
  new Gauge({ name, help, registers, collect: summed(sources) });

export const metrics = {
  httpRequests: counter('media_http_requests_total', 'Gateway requests answered, by route pattern, method and status.', [
    'route',
    'method',
    'status',
  ]),
  httpDuration: histogram(
    'media_http_request_duration_seconds',
    'Gateway request latency, by route pattern and method.',
    ['route', 'method'],
    SECONDS,
  ),
  rpcCalls: counter('media_rpc_client_calls_total', 'Connect/gRPC calls made to the services, by service, method and code.', [
    'service',
    'method',
    'code',
  ]),
  rpcDuration: histogram(
    'media_rpc_client_duration_seconds',
    'Connect/gRPC call latency, by service and method.',
    ['service', 'method'],
    SECONDS,
  ),
  jobsFinished: counter(
    'media_jobs_finished_total',
    'Jobs that reached a final state, by kind (sync, async, probe) and outcome (completed, failed, cancelled).',
    ['kind', 'outcome'],
  ),
  jobWait: histogram('media_job_wait_seconds', 'From a job being accepted to its run starting, by kind.', ['kind'], LONG_SECONDS),
  ffmpegSeconds: histogram(
    'media_ffmpeg_seconds',
    'Time in ffmpeg or ffprobe of each completed job (what is charged), by kind.',
    ['kind'],
    LONG_SECONDS,
  ),
  queued: summedGauge('media_jobs_queued', 'Async jobs waiting for a worker.', queuedSources),
  running: summedGauge('media_jobs_running', 'Jobs this process is running now (ffmpeg slots in use).', runningSources),
  bytes: counter('media_bytes_total', 'Bytes uploaded to and downloaded from signed URLs, and fetched from URL inputs.', ['direction']),
  webhookDeliveries: counter(
    'media_webhook_deliveries_total',
    'Webhook delivery attempts, by outcome: delivered, retry (will be tried again), failed (no attempts left).',
    ['outcome'],
  ),
  webhookBacklog: summedGauge('media_webhook_backlog', 'Webhook deliveries not yet delivered or given up.', webhookBacklogSources),
  diskHeadroom: new Gauge({
    name: 'media_disk_headroom_bytes',
    help: 'Free space above DISK_RESERVE_MB on the disk a service writes user data to, by volume; below 0 it refuses new data (503).',
    labelNames: ['volume'] as const,
    registers,
    async collect() {
      for (const [volume, source] of headroomSources) {
        const value = await source().catch(() => undefined);
        if (value !== undefined) this.set({ volume }, value);
      }
    },
  }),
  breakerOpen: new Gauge({
    name: 'media_breaker_open',
    help: '1 while the circuit breaker of a dependency is open (answering 503 at once), else 0.',
    labelNames: ['dependency'] as const,
    registers,
  }),
  rateLimited: counter('media_rate_limited_total', 'Requests refused with 429, by limit (key_rate, jobs_in_progress, connections).', [
    'limit',
  ]),
  charges: new Counter({ name: 'media_charges_total', help: 'Charges recorded (usage rows).', registers }),
  chargedGbSeconds: new Counter({ name: 'media_charged_gb_seconds_total', help: 'GB-seconds charged.', registers }),
};

/** A live figure for a gauge; returns its removal (a service's close). */
function addSource(set: Set<() => Promise<number>>, source: () => Promise<number>): () => void {
  set.add(source);
  return () => set.delete(source);
}

export const metricSources = {
  queued: (source: () => Promise<number>) => addSource(queuedSources, source),
  running: (source: () => Promise<number>) => addSource(runningSources, source),
  webhookBacklog: (source: () => Promise<number>) => addSource(webhookBacklogSources, source),
  diskHeadroom: (volume: string, source: () => Promise<number>) => void headroomSources.set(volume, source),
};
