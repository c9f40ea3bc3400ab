// Authenticated GET /job/{id} against bare Fastify hello world, same tool (autocannon), same
// connections: the request rate at full load, then the p99 latency at half of it. Every request
// carries a real key and counts against its rate limit (300 a minute per key), so the load turns
// through a pool of keys of one account, as many clients of one customer would. The job polled
// has completed, the usual last poll; the gateway answers a finished job from memory (docs/api/conventions.md).
import { median, ms, perSec } from '../lib/stats.js';
import { load, startHello, type LoadResult } from '../lib/load.js';
import { api, upload, type Service } from '../lib/service.js';
import type { Context, Row } from '../lib/report.js';
import { waitForJobs } from './async-jobs.js';

const CONNECTIONS = 10;
const DURATION_SEC = 5;

export async function jobStatus(ctx: Context, svc: Service, tiny: string): Promise<Row[]> {
  const runs = 5;
  // Enough keys that none nears its 300 a minute: at 20,000 req/s for the ~31 s of load, about
  // 155 requests per key.
  const { authorizations } = await svc.account(4000);
  const call = api(svc.stack.baseUrl, authorizations[0]!);
  const filePath = await upload(call, tiny, 'tiny.png');
  const { job_id } = await call('POST', '/ffmpeg/process/async', {
    task: { inputs: [{ file_path: filePath }], outputs: [{ file: 'out.jpg', options: ['-frames:v', '1'] }] },
  });
  await waitForJobs([call], 1);
  const url = `${svc.stack.baseUrl}/job/${job_id}`;
  const hello = await startHello();
  const bare: LoadResult[] = [];
  const service: LoadResult[] = [];
  try {
    await load({ url: hello.url, connections: CONNECTIONS, durationSec: 1 });
    // Each connection through every key once: the gateway has asked Auth about each key (as it
    // has for any key in use) before anything is measured.
    await load({ url, connections: CONNECTIONS, durationSec: 120, amount: authorizations.length * CONNECTIONS, authorizations });
    for (let i = 0; i < runs; i++) {
      bare.push(await load({ url: hello.url, connections: CONNECTIONS, durationSec: DURATION_SEC }));
      service.push(await load({ url, connections: CONNECTIONS, durationSec: DURATION_SEC, authorizations }));
    }
  } finally {
    await hello.stop();
  }
  const failed = service.reduce((n, r) => n + r.failures, 0);
  if (failed) throw new Error(`GET /job answered ${failed} non-2xx or failed requests under load`);
  const bareRps = median(bare.map((r) => r.requestsPerSec));
  const serviceRps = median(service.map((r) => r.requestsPerSec));
  const half = await load({ url, connections: CONNECTIONS, durationSec: DURATION_SEC, overallRate: serviceRps / 2, authorizations });
  if (half.failures) throw new Error(`GET /job answered ${half.failures} non-2xx or failed requests at half load`);
  ctx.log(
    `job status: bare ${bare.map((r) => Math.round(r.requestsPerSec))} req/s | service ${service.map((r) => Math.round(r.requestsPerSec))} req/s (p99 ${service.map((r) => r.p99Ms)} ms) | half load ${Math.round(half.requestsPerSec)} req/s p50 ${half.p50Ms} ms p99 ${half.p99Ms} ms`,
  );
  return [
    {
      benchmark: `authenticated \`GET /job/{id}\`, ${CONNECTIONS} connections`,
      baseline: `${perSec(bareRps)} (bare Fastify)`,
      service: perSec(serviceRps),
      figure: `${((serviceRps / bareRps) * 100).toFixed(1)}%`,
      target: '>= 25% of its requests/s',
      met: serviceRps / bareRps >= 0.25,
    },
    {
      benchmark: `authenticated \`GET /job/{id}\` at half of max load (${perSec(half.requestsPerSec)})`,
      baseline: '-',
      service: `p50 ${ms(half.p50Ms)}`,
      figure: `p99 ${ms(half.p99Ms)}`,
      target: 'p99 < 10 ms',
      met: half.p99Ms < 10,
    },
  ];
}
