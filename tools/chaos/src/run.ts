// One chaos run: the cluster (npm run cluster's topology, with the chaos knobs below), accounts and
// inputs, the limits probed, then the steady load and the faults side by side for `minutes`; then
// a bounded wait for the jobs, webhooks and charges to settle, the end reads, and the invariants.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type Cluster } from '@media/tool-cluster';
import { Client } from './client.js';
import { listJobs, readFiles, usageRows } from './final.js';
import { planFaults, runFaults, type PlannedFault } from './faults.js';
import { checkAll, type Verdict } from './invariants/index.js';
import { TERMINAL } from './invariants/verdict.js';
import { acceptedJobs } from './invariants/accepted.js';
import type { LoadAccount, LoadContext } from './load/context.js';
import { drive } from './load/driver.js';
import { makeInputs } from './load/inputs.js';
import { probeJobs, probeRate } from './load/limits.js';
import { seeded } from './random.js';
import type { FaultRecord, RunData } from './record.js';
import { startReceiver } from './receiver.js';

/**
 * The cluster's settings for chaos (test knobs, over the chart's): a job time limit of 2 minutes
 * rather than 60, so the wait for every job to end is bounded by minutes; webhook retries within a
 * minute rather than 2 hours (same number of attempts).
 */
export const CHAOS_ENV = {
  JOB_TIMEOUT_SEC: '120',
  WEBHOOK_RETRY_SCHEDULE_SEC: '2,5,10,20,30',
  WEBHOOK_POLL_INTERVAL_MS: '500',
} as const;
/** After the load stops and the last fault is repaired: JOB_TIMEOUT_SEC plus this for everything to settle. */
export const SETTLE_BOUND_MS = 90_000;

export interface ChaosOptions {
  minutes: number;
  replicas?: number;
  seed?: number;
  /** Accounts of the steady load (one more probes the limits). */
  accounts?: number;
  /** Operations started per second; at most `concurrency` in flight; at most `maxOperations`. */
  ratePerSec?: number;
  concurrency?: number;
  maxOperations?: number;
  /** false: the load alone (the fault-catch test's run). */
  faults?: boolean;
  /** More environment for every process (over CHAOS_ENV), e.g. a failpoint. */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface ChaosResult {
  ok: boolean;
  seed: number;
  verdicts: Verdict[];
  plan: PlannedFault[];
  data: RunData;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runChaos(o: ChaosOptions): Promise<ChaosResult> {
  const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rng = seeded(seed);
  const log = o.log ?? (() => {});
  const replicas = o.replicas ?? 2;
  const dir = await mkdtemp(join(tmpdir(), 'media-chaos-'));
  const receiver = await startReceiver(dir);
  const crashes: string[] = [];
  let cluster: Cluster | undefined;
  try {
    const inputs = await makeInputs(dir);
    log(`chaos: seed ${seed}, ${o.minutes} min, ${replicas} replicas; starting the cluster`);
    cluster = await startCluster({
      replicas,
      log: (line) => log(`cluster: ${line}`),
      env: { ...receiver.env, ...CHAOS_ENV, ...o.env },
      onUnexpectedExit: (name, how, tail) => crashes.push(`${name} exited on its own (${how}): ${tail.split('\n').slice(-5).join(' | ')}`),
    });
    const c = cluster;
    const client = new Client(c.publicUrl);
    const startedMs = Date.now();

    // Accounts, each with a directory holding the inputs.
    const newAccount = async (label: string, files: [string, Buffer][]): Promise<LoadAccount> => {
      const { account_id } = await c.admin('account', 'create');
      const key = await c.admin('key', 'create', '--account', String(account_id), '--name', `chaos-${label}`);
      const a = { label, accountId: String(account_id), authorization: String(key.authorization), dirId: '', seq: 0 };
      const made = await client.api('setup', a, 'POST', '/directory', { ttl: 86_400 });
      if (made.status !== 200) throw new Error(`POST /directory: ${made.status} ${made.body?.error ?? ''}`);
      a.dirId = String(made.body!.directory.id);
      for (const [name, bytes] of files) {
        const reg = await client.api('setup', a, 'POST', '/file', { file_name: name, dir_id: a.dirId });
        const put = await client.signed('setup', a, 'PUT', reg.body!.upload.url, reg.body!.upload.headers, bytes);
        if (put.status !== 200) throw new Error(`upload of ${name}: ${put.status}`);
      }
      return a;
    };
    const accounts = await Promise.all(Array.from({ length: o.accounts ?? 3 }, (_, i) => newAccount(`a${i}`, [['clip.mp4', inputs.clip]])));
    // The limits' probes, each on an account of its own (the rate burst leaves its key refused a while).
    const rateAccount = await newAccount('rate', []);
    const limitsAccount = await newAccount('limits', [['slow.mp4', inputs.slow]]);
    const all = [...accounts, rateAccount, limitsAccount];
    const secrets: Record<string, string> = {};
    for (const a of all) secrets[a.label] = String((await c.admin('account', 'webhook-secret', a.accountId)).webhook_secret);

    // The limits, across the gateways, before the baseline (the paced jobs hold the Jobs slots a while).
    const rate = await probeRate(client, rateAccount);
    const jobs = await probeJobs(client, limitsAccount, 'slow.mp4', receiver.urlFor(limitsAccount.label));
    log(`limits: rate ${rate.admitted}/${rate.sent} admitted; jobs ${jobs.accepted.length}/${jobs.sent} accepted`);
    await waitUntil(() => jobs.accepted.every((id) => receiver.deliveries.some((d) => d.body.includes(id))), 180_000);

    // The steady load and the faults, side by side.
    const ctx: LoadContext = { client, accounts, webhookUrl: receiver.urlFor, rng, uploads: [], downloads: [], now: Date.now };
    const durationMs = o.minutes * 60_000;
    const loadStartMs = Date.now();
    const plan = o.faults === false ? [] : planFaults(rng, durationMs, c.list());
    const faults: FaultRecord[] = [];
    let loadDone = false;
    const injecting = runFaults(c, plan, loadStartMs, log, faults, () => loadDone);
    const started = await drive(ctx, {
      ratePerSec: o.ratePerSec ?? 5,
      concurrency: o.concurrency ?? 6,
      untilMs: loadStartMs + durationMs,
      maxOperations: o.maxOperations ?? Math.ceil((o.ratePerSec ?? 5) * o.minutes * 60),
    });
    loadDone = true;
    const loadEndMs = Date.now();
    await injecting;
    log(`load: ${started} operations, ${client.calls.length} requests; settling`);

    // Bounded wait: every accepted job terminal and every completed or failed one delivered.
    const lastRepair = Math.max(loadEndMs, ...faults.map((f) => f.endMs));
    const deadline = lastRepair + Number(CHAOS_ENV.JOB_TIMEOUT_SEC) * 1000 + SETTLE_BOUND_MS;
    const accepted = acceptedJobs(client.calls);
    let finalJobs: RunData['finalJobs'] = [];
    const settled = async () => {
      finalJobs = (await Promise.all(all.map((a) => listJobs(client, a)))).flat();
      const status = new Map(finalJobs.map((j) => [j.id, j.status]));
      const delivered = new Set(receiver.deliveries.map((d) => d.headers['webhook-id']));
      return [...accepted.keys()].every((id) => {
        const s = status.get(id);
        return s !== undefined && TERMINAL.includes(s) && (s === 'cancelled' || delivered.has(id));
      });
    };
    const settledInTime = await waitUntil(settled, deadline - Date.now(), 3000);
    log(
      `settle: ${settledInTime ? 'every job terminal and delivered' : 'NOT settled by the bound'} after ${((Date.now() - lastRepair) / 1000).toFixed(0)} s`,
    );

    // Charges arrive through the bus: wait (bounded) until every completed job and charged answer has its row.
    const charged = new Set([
      ...client.calls.filter((x) => (x.op === 'sync' || x.op === 'probe') && x.status === 200 && x.requestId).map((x) => x.requestId!),
      ...finalJobs.filter((j) => j.status === 'completed').map((j) => j.id),
    ]);
    let usage: RunData['usage'] = [];
    await waitUntil(
      async () => {
        usage = (await Promise.all(all.map((a) => usageRows(client, a, startedMs)))).flat();
        const rows = new Set(usage.map((r) => r.request_id));
        return [...charged].every((id) => rows.has(id));
      },
      Math.max(deadline - Date.now(), 30_000),
      3000,
    );
    // One more read after a pause: a late duplicate would land meanwhile.
    await sleep(3000);
    usage = (await Promise.all(all.map((a) => usageRows(client, a, startedMs)))).flat();

    const { downloads, listed } = await readFiles(client, accounts, ctx.uploads);
    const data: RunData = {
      startedMs: loadStartMs,
      loadEndMs,
      calls: client.calls.filter((x) => x.op !== 'setup'),
      uploads: ctx.uploads,
      downloads: [...ctx.downloads, ...downloads],
      webhooks: receiver.deliveries,
      faults,
      secrets,
      finalJobs,
      usage,
      limits: { rate, jobs },
      crashes,
      listed,
    };
    const gateway = c.list().find((p) => p.kind === 'gateway')!.name;
    // The gateway's default sync interval (gateway/src/config.ts) unless the chart sets one.
    const rateSyncMs = Number(c.get(gateway).spec.env.AUTH_RATE_SYNC_MS ?? 200);
    const verdicts = checkAll(data, { gateways: replicas, rateSyncMs });
    return { ok: verdicts.every((v) => v.ok), seed, verdicts, plan, data };
  } finally {
    await cluster?.stop();
    await receiver.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Polls `done` until it holds or `timeoutMs` passes; whether it held. A failing poll counts as not yet. */
async function waitUntil(done: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 1000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (
      await Promise.resolve()
        .then(done)
        .catch(() => false)
    )
      return true;
    if (Date.now() >= until) return false;
    await sleep(everyMs);
  }
}
