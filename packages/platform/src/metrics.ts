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

export const metrics = {
  httpRequests: new Counter({
    name: 'media_http_requests_total',
    help: 'Gateway requests answered, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  }),
  httpDuration: new Histogram({
    name: 'media_http_request_duration_seconds',
    help: 'Gateway request latency, by route pattern and method.',
    labelNames: ['route', 'method'] as const,
    buckets: SECONDS,
    registers,
  }),
  rpcCalls: new Counter({
    name: 'media_rpc_client_calls_total',
    help: 'Connect/gRPC calls made to the services, by service, method and code.',
    labelNames: ['service', 'method', 'code'] as const,
    registers,
  }),
  rpcDuration: new Histogram({
    name: 'media_rpc_client_duration_seconds',
    help: 'Connect/gRPC call latency, by service and method.',
    labelNames: ['service', 'method'] as const,
    buckets: SECONDS,
    registers,
  }),
  jobsFinished: new Counter({
    name: 'media_jobs_finished_total',
    help: 'Jobs that reached a final state, by kind (sync, async, probe) and outcome (completed, failed, cancelled).',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  }),
  jobWait: new Histogram({
    name: 'media_job_wait_seconds',
    help: 'From a job being accepted to its run starting, by kind.',
    labelNames: ['kind'] as const,
    buckets: LONG_SECONDS,
    registers,
  }),
  ffmpegSeconds: new Histogram({
    name: 'media_ffmpeg_seconds',
    help: 'Time in ffmpeg or ffprobe of each completed job (what is charged), by kind.',
    labelNames: ['kind'] as const,
    buckets: LONG_SECONDS,
    registers,
  }),
  queued: new Gauge({
    name: 'media_jobs_queued',
    help: 'Async jobs waiting for a worker.',
    registers,
    collect: summed(queuedSources),
  }),
  running: new Gauge({
    name: 'media_jobs_running',
    help: 'Jobs this process is running now (ffmpeg slots in use).',
    registers,
    collect: summed(runningSources),
  }),
  bytes: new Counter({
    name: 'media_bytes_total',
    help: 'Bytes uploaded to and downloaded from signed URLs, and fetched from URL inputs.',
    labelNames: ['direction'] as const,
    registers,
  }),
  webhookDeliveries: new Counter({
    name: 'media_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered, retry (will be tried again), failed (no attempts left).',
    labelNames: ['outcome'] as const,
    registers,
  }),
  webhookBacklog: new Gauge({
    name: 'media_webhook_backlog',
    help: 'Webhook deliveries not yet delivered or given up.',
    registers,
    collect: summed(webhookBacklogSources),
  }),
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
  rateLimited: new Counter({
    name: 'media_rate_limited_total',
    help: 'Requests refused with 429, by limit (key_rate, jobs_in_progress, connections).',
    labelNames: ['limit'] as const,
    registers,
  }),
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
