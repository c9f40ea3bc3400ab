// What metrics cost the hottest request: authenticated GET /job/{id} of a processing job (read
// through Jobs on every poll) through the gateway's build() on in-memory services, with the
// per-request metrics recorded (HTTP and RPC) and the registry scraped every second, against the
// same gateway with recording switched off (METRICS_ENABLED=false). Same process, same heap; the
// two alternate in rounds, each measured as requests per second of the process's CPU (what a
// CPU-bound gateway can serve), and the figure is the median of the rounds' ratios. In process
// because over sockets the rate of this 2-core machine swings by +-20 % from one 5 s round to the
// next (an A/A run of two identical services read 0.93-0.96x), too much to resolve 5 %; and on
// in-memory services because a whole stack's background work (scans, rate reports) in the same
// event loop swung rounds from 1,100 to 7,900 requests a second.
import { create } from '@bufbuild/protobuf';
import { createClient, createRouterTransport } from '@connectrpc/connect';
import { InProcessEventBus } from '@media/eventbus';
import { build, gatewayConfigSpec } from '@media/gateway';
import { loadConfig, registry, rpcMetricsInterceptor, setMetricsRecording } from '@media/platform';
import { AuthService, RateCountSchema } from '@media/proto/media/auth/v1/auth_pb.js';
import { BillingService } from '@media/proto/media/billing/v1/billing_pb.js';
import { JobSchema, JobsService, JobStatus } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { median, perSec, ratio } from '../lib/stats.js';
import type { Context, Row } from '../lib/report.js';

const IN_FLIGHT = 10;
const ROUND_MS = 2000;
const ROUNDS = 10;
const KEY = 'Basic mk_benchkey000000000000000000000000000000';

async function inMemoryGateway() {
  const window = () => BigInt(Math.floor(Date.now() / 60_000));
  const job = create(JobSchema, {
    jobId: 'job_bench',
    status: JobStatus.PROCESSING,
    progress: { percent: 42, fps: 25, speed: 1.5, etaSec: 10 },
  });
  const transport = createRouterTransport(
    (router) => {
      router.service(AuthService, {
        authenticate: () => ({
          accountId: 'acc_bench',
          keyId: 'key_bench',
          rateLimitRemaining: 999_999,
          rateLimitResetSeconds: 60,
          rate: create(RateCountSchema, { keyId: 'key_bench', window: window(), previous: 0, current: 1 }),
        }),
        countRequests: ({ admitted }) => ({ counts: admitted.map((a) => ({ keyId: a.keyId, window: a.window, previous: 0, current: 1 })) }),
      });
      router.service(JobsService, { getJob: () => ({ job }) });
      router.service(StorageService, {});
      router.service(ProbeService, {});
      router.service(BillingService, {});
    },
    // As the gateway's real clients count and time every call.
    { transport: { interceptors: [rpcMetricsInterceptor] } },
  );
  const clients = {
    auth: createClient(AuthService, transport),
    storage: createClient(StorageService, transport),
    jobs: createClient(JobsService, transport),
    probe: createClient(ProbeService, transport),
    billing: createClient(BillingService, transport),
    close: () => {},
  };
  const config = loadConfig(gatewayConfigSpec, { LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000' });
  const bus = new InProcessEventBus();
  const app = await build({ config, clients, bus });
  await app.ready();
  return { app, close: async () => (await app.close(), await bus.close()) };
}

export async function metricsCost(ctx: Context): Promise<Row> {
  const gateway = await inMemoryGateway();
  const request = { method: 'GET' as const, url: '/job/job_bench', headers: { authorization: KEY } };
  /**
   * Requests a second of this process's CPU over `ms`, IN_FLIGHT at a time; with `scrape`, the
   * registry read every second. CPU time, not wall time: this VM's neighbours take whole
   * slices of wall time (steal) from either side at random.
   */
  const rate = async (ms: number, scrape: boolean) => {
    const scraper = scrape ? setInterval(() => void registry.metrics(), 1000) : undefined;
    let done = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const end = started + ms;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < end) {
          const res = await gateway.app.inject(request);
          if (res.statusCode !== 200) throw new Error(`GET /job answered ${res.statusCode}: ${res.body}`);
          done++;
        }
      }),
    );
    clearInterval(scraper);
    const used = process.cpuUsage(cpu);
    return done / ((used.user + used.system) / 1e6);
  };
  const rates: Record<'on' | 'off', number[]> = { on: [], off: [] };
  try {
    // Warm both ways first (JIT, caches), then alternate which goes first.
    for (let round = -1; round < ROUNDS; round++) {
      for (const side of round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
        setMetricsRecording(side === 'on');
        const r = await rate(ROUND_MS, side === 'on');
        if (round >= 0) rates[side].push(r);
      }
    }
  } finally {
    setMetricsRecording(true);
    await gateway.close();
  }
  const ratios = rates.on.map((on, i) => on / rates.off[i]!);
  const figure = median(ratios);
  ctx.log(
    `metrics cost: on ${rates.on.map(Math.round)} req/s | off ${rates.off.map(Math.round)} req/s | on/off ${ratios.map((x) => x.toFixed(3))}`,
  );
  return {
    benchmark: `authenticated \`GET /job/{id}\` with HTTP and RPC metrics and a scrape every second (gateway on in-memory services, ${IN_FLIGHT} in flight)`,
    baseline: `${perSec(median(rates.off))} of CPU (METRICS_ENABLED=false)`,
    service: `${perSec(median(rates.on))} of CPU`,
    figure: ratio(figure),
    target: '>= 0.95x',
    met: figure >= 0.95,
  };
}
