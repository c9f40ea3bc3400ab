// Metrics and health as an operator sees them: a real Prometheus (Debian's package, loopback
// only, config written here, the chart's alert rules loaded) scrapes `npm start` while jobs, a
// failure and a webhook run; the counters and histograms are read back through Prometheus's own
// query API. Skipped where no prometheus binary is installed (CI installs it).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, spawnStack, type Spawned, waitForPort } from '@media/testkit';
import { accountWithClip, webhookReceiver } from './spawned-account.js';

const PROMETHEUS = '/usr/bin/prometheus';
const maybe = existsSync(PROMETHEUS) ? describe : describe.skip;

/** A loopback port free now (Prometheus takes an address, not port 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

maybe('Prometheus scraping npm start', () => {
  let stack: Spawned;
  let dir: string;
  let prometheus: ChildProcess;
  let promUrl: string;
  let opsUrl: string;
  let hooks: Awaited<ReturnType<typeof webhookReceiver>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'media-prom-'));
    hooks = await webhookReceiver(dir);
    stack = await spawnStack(hooks.env);
    opsUrl = /metrics, health:\s+(\S+)\/metrics/.exec(stack.banner)![1]!;
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    const config = [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      `rule_files: [${JSON.stringify(join(root, 'deploy/helm/media-service/files/alerts.yml'))}]`,
      'scrape_configs:',
      '  - job_name: media',
      `    static_configs: [{ targets: [${JSON.stringify(new URL(opsUrl).host)}] }]`,
    ].join('\n');
    await writeFile(join(dir, 'prometheus.yml'), config);
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: 'ignore' },
    );
    await waitForPort(port, 20_000, 'prometheus');
  }, 60_000);

  afterAll(async () => {
    prometheus?.kill('SIGKILL');
    await stack?.stop();
    await hooks?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** One instant value through Prometheus's query API (0 when the series does not exist). */
  async function query(promql: string): Promise<number> {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body = (await res.json()) as { status: string; data: { result: { value: [number, string] }[] } };
    expect(body.status).toBe('success');
    return body.data.result.reduce((sum, r) => sum + Number(r.value[1]), 0);
  }

  /** Waits until Prometheus has scraped what the service now shows. */
  async function settled(promql: string, expected: number): Promise<number> {
    let value = -1;
    for (let i = 0; i < 100 && value !== expected; i++) {
      value = await query(promql);
      if (value !== expected) await new Promise((r) => setTimeout(r, 200));
    }
    return value;
  }

  test('health: /livez and /readyz on the ops listener, ready when all five services are', async () => {
    expect((await fetch(`${opsUrl}/livez`)).status).toBe(200);
    const ready = await fetch(`${opsUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, checks: { auth: 'ok', storage: 'ok', jobs: 'ok', probe: 'ok', billing: 'ok' } });
    expect((await fetch(`${opsUrl}/nope`)).status).toBe(404);
    // And none of it on the API's port.
    for (const path of ['/metrics', '/livez', '/readyz']) expect((await fetch(`${stack.baseUrl}${path}`)).status).toBe(404);
  });

  test('jobs, a failure and a webhook move the counters and histograms Prometheus reads', async () => {
    const account = await accountWithClip(stack, 'testsrc=duration=1:size=160x120:rate=10');
    const call = (method: string, path: string, body?: unknown) => account.call(stack.baseUrl, method, path, body);
    const input = [{ file_path: `${account.dirId}/clip.mp4` }];

    for (const out of ['a.png', 'b.png', 'c.png'])
      expect(
        (await call('POST', '/ffmpeg/process', { task: { inputs: input, outputs: [{ file: out, options: ['-frames:v', '1'] }] } })).status,
      ).toBe(200);
    // A task FFmpeg itself fails on: no frame at 10 s of a 1 s clip makes no output.
    const failed = await call('POST', '/ffmpeg/process', {
      task: { inputs: input, outputs: [{ file: 'x.png', options: ['-ss', '10', '-frames:v', '1'] }] },
    });
    expect(failed.status).toBe(500);
    const job = await call('POST', '/ffmpeg/process/async', {
      task: { inputs: input, outputs: [{ file: 'd.png', options: ['-frames:v', '1'] }] },
      webhook_url: `${hooks.url}/hook`,
    });
    expect(job.status).toBe(202);
    for (let i = 0; i < 100 && !hooks.delivered.includes(job.body.job_id); i++) await new Promise((r) => setTimeout(r, 100));
    expect(hooks.delivered).toEqual([job.body.job_id]);

    expect(await settled('sum(media_jobs_finished_total{kind="sync",outcome="completed"})', 3)).toBe(3);
    expect(await settled('sum(media_jobs_finished_total{kind="sync",outcome="failed"})', 1)).toBe(1);
    expect(await settled('sum(media_jobs_finished_total{kind="async",outcome="completed"})', 1)).toBe(1);
    expect(await settled('sum(media_webhook_deliveries_total{outcome="delivered"})', 1)).toBe(1);
    expect(await settled('sum(media_charges_total)', 4)).toBe(4);
    expect(await query('sum(media_ffmpeg_seconds_count)')).toBe(4);
    expect(await query('sum(media_ffmpeg_seconds_sum)')).toBeGreaterThan(0);
    expect(await query('sum(media_charged_gb_seconds_total)')).toBeGreaterThan(0);
    expect(await query('sum(media_http_requests_total{route="/ffmpeg/process",method="POST",status="200"})')).toBe(3);
    expect(await query('sum(media_http_requests_total{route="/ffmpeg/process",method="POST",status="500"})')).toBe(1);
    expect(await query('sum(media_http_request_duration_seconds_count{route="/ffmpeg/process"})')).toBe(4);
    expect(await query('sum(media_rpc_client_calls_total{service="JobsService",method="ProcessSync",code="OK"})')).toBe(3);
    expect(await query('sum(media_bytes_total{direction="uploaded"})')).toBeGreaterThan(0);
    expect(await query('sum(media_jobs_queued)')).toBe(0);
    expect(await query('sum(media_webhook_backlog)')).toBe(0);
    expect(await query('count(media_breaker_open == 0)')).toBeGreaterThan(0);
    expect(await query('min(media_disk_headroom_bytes)')).toBeGreaterThan(0);
    expect(await query('up{job="media"}')).toBe(1);
    expect(await query('count(process_resident_memory_bytes)')).toBe(1);

    // Bounded labels: no account, key, job or directory id anywhere in what is exposed.
    const exposed = await (await fetch(`${opsUrl}/metrics`)).text();
    expect(exposed).toContain('media_jobs_finished_total');
    expect(exposed).not.toMatch(/"(acc|key|job|dir|req)_[a-z0-9]{6,}/);

    // Every query of the Grafana dashboard is valid PromQL and finds data here.
    const dashboard = JSON.parse(await readFile(join(root, 'deploy/grafana/media-service.json'), 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    for (const panel of dashboard.panels)
      for (const { expr } of panel.targets) {
        const res = (await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`)).json()) as {
          status: string;
          error?: string;
        };
        expect({ panel: panel.title, status: res.status, error: res.error }).toEqual({
          panel: panel.title,
          status: 'success',
          error: undefined,
        });
      }

    // The alert rules loaded and evaluate (none fires on a healthy service).
    const rules = (await (await fetch(`${promUrl}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { name: string; health: string; state: string }[] }[] };
    };
    const loaded = rules.data.groups.flatMap((g) => g.rules);
    expect(loaded.length).toBe(7);
    for (const r of loaded)
      expect({ name: r.name, health: r.health, state: r.state }).toEqual({
        name: r.name,
        health: expect.stringMatching(/ok|unknown/),
        state: 'inactive',
      });
  }, 90_000);
});
