// npm run bench [-- --only transcode,probe --runs 5 --size-mb 1000 --no-write]
//                  [--profile-service DIR: a CPU profile of the service per benchmark, into DIR]
//                  [--service-env NAME=VALUE ...: extra environment of the service, e.g. a
//                   setting to compare; figures so taken are not the shipped service's]
//                  [--cluster: instead, the replica benchmarks on npm run cluster's topology,
//                   printed only; docs/benchmarks.md keeps them by hand]
// Runs every benchmark against its baseline in this one process, prints the table and writes it
// to docs/benchmarks.md. The service is the built `npm start` entrypoint in its own process.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { clip720, randomFile, tinyPng } from './lib/fixtures.js';
import { markdownTable, type Context, type Row } from './lib/report.js';
import { startService, type Service } from './lib/service.js';
import { accountQuota } from './benches/account-quota.js';
import { asyncJobs } from './benches/async-jobs.js';
import { capacityShare } from './benches/capacity-share.js';
import { consolePages } from './benches/console-pages.js';
import { fairShare } from './benches/fair-share.js';
import { jobStatus } from './benches/job-status.js';
import { metricsCost } from './benches/metrics-cost.js';
import { probe } from './benches/probe.js';
import { rpcServer } from './benches/rpc-server.js';
import { REPLICA_BENCHES, replicaBenches } from './benches/replicas.js';
import { splitEncode } from './benches/split-encode.js';
import { splitScaleOut } from './benches/split-scale-out.js';
import { thumbnail, transcode } from './benches/sync-process.js';
import { transfer } from './benches/transfer.js';
import { tusUpload } from './benches/tus-upload.js';
import { urlFetch } from './benches/url-fetch.js';
import { urlJobs } from './benches/url-jobs.js';

const FINDINGS = '## Findings';
const SETTLE_MS = 20_000;
const ALL = [
  'transcode',
  'thumbnail',
  'probe',
  'transfer',
  'tus-upload',
  'url-fetch',
  'job-status',
  'async-jobs',
  'url-jobs',
  'fair-share',
  'capacity-share',
  'account-quota',
  'metrics-cost',
  'console-pages',
  'split-encode',
  'split-scale-out',
  'rpc-server',
] as const;
const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    runs: { type: 'string', default: '7' },
    'size-mb': { type: 'string', default: '1000' },
    'worker-concurrency': { type: 'string', default: '2' },
    'no-write': { type: 'boolean', default: false },
    // Figures taken while profiling are not comparable with a plain run's.
    'profile-service': { type: 'string' },
    'service-env': { type: 'string', multiple: true, default: [] },
    cluster: { type: 'boolean', default: false },
  },
});
const names: readonly string[] = values.cluster ? REPLICA_BENCHES : ALL;
const only = new Set(values.only ? values.only.split(',') : names);
for (const name of only) if (!names.includes(name)) throw new Error(`unknown benchmark ${name}; one of ${names.join(', ')}`);
const sizeBytes = Number(values['size-mb']) * 1e6;
const workerConcurrency = Number(values['worker-concurrency']);
const profileDir = values['profile-service'] ? resolve(values['profile-service']) : undefined;
if (profileDir) await mkdir(profileDir, { recursive: true });
const serviceEnv = Object.fromEntries(
  values['service-env'].map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new Error(`--service-env wants NAME=VALUE, not ${pair}`);
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  }),
);

const root = resolve(import.meta.dirname, '../../..');
const workDir = await mkdtemp(join(tmpdir(), 'media-bench-'));
const ctx: Context = { runs: Number(values.runs), workDir, log: (line) => process.stderr.write(`  ${line}\n`) };
const rows: Row[] = [];
try {
  if (values.cluster) rows.push(...(await replicaBenches(ctx, only)));
  else await serviceBenches();
} finally {
  await rm(workDir, { recursive: true, force: true });
}

async function serviceBenches() {
  const clip = await clip720(workDir);
  const tiny = await tinyPng(workDir);
  // Each benchmark gets a freshly started service, so none inherits another's state (a heap
  // grown by gigabytes of transfers, queued work), and starts with the disk flushed: the
  // transfers leave gigabytes of dirty pages whose writeback would steal CPU from the next one.
  const step = async (name: (typeof ALL)[number], bench: (svc: Service) => Promise<Row | Row[]>, settle = false) => {
    if (!only.has(name)) return;
    process.stderr.write(`${name}...\n`);
    execFileSync('sync');
    const svc = await startService({ WORKER_CONCURRENCY: String(workerConcurrency), ...serviceEnv }, { profileDir });
    try {
      // Single requests are timed once start-up is over: V8 shrinks the heap that start-up grew
      // with a few full collections (tens of ms each, plus helper threads) 8-18 s after start,
      // which fell on the first timed rounds. Not the load benchmarks: a heap shrunk by idling
      // regrows under the load, which cost GET /job 5-10% of its rate in a 5 s run; they warm
      // up under load instead.
      if (settle) await svc.settled(SETTLE_MS);
      rows.push(...[await bench(svc)].flat());
    } finally {
      await svc.close();
    }
  };
  await step('transcode', (svc) => transcode(ctx, svc, clip), true);
  await step('thumbnail', (svc) => thumbnail(ctx, svc, clip), true);
  await step('probe', (svc) => probe(ctx, svc, clip), true);
  let bigFile: Promise<string> | undefined;
  const big = () => (bigFile ??= randomFile(workDir, sizeBytes));
  await step('transfer', async (svc) => transfer(ctx, svc, await big(), sizeBytes));
  await step('tus-upload', (svc) => tusUpload(ctx, svc));
  if (only.has('url-fetch')) {
    // The fetcher alone, in this process: no service to start.
    process.stderr.write('url-fetch...\n');
    rows.push(await urlFetch(ctx, await big(), sizeBytes));
  }
  await step('job-status', (svc) => jobStatus(ctx, svc, tiny));
  await step('async-jobs', (svc) => asyncJobs(ctx, svc, tiny, workerConcurrency));
  await step('fair-share', (svc) => fairShare(ctx, svc, clip, tiny, workerConcurrency));
  await step('capacity-share', (svc) => capacityShare(ctx, svc, clip, tiny, workerConcurrency));
  if (only.has('url-jobs')) {
    // Starts its own services: the same service with two settings, side by side.
    process.stderr.write('url-jobs...\n');
    execFileSync('sync');
    rows.push(await urlJobs(ctx, clip, workerConcurrency, serviceEnv));
  }
  if (only.has('metrics-cost')) {
    // The gateway in this process, with metrics recorded and not.
    process.stderr.write('metrics-cost...\n');
    rows.push(await metricsCost(ctx));
  }
  if (only.has('console-pages')) {
    // Starts its own services: seeded databases, then the console's pages timed.
    process.stderr.write('console-pages...\n');
    rows.push(await consolePages(ctx));
  }
  if (only.has('split-encode')) {
    // Starts its own services: one pinned to a core, one on the whole machine (minutes each).
    process.stderr.write('split-encode...\n');
    execFileSync('sync');
    rows.push(...(await splitEncode(ctx)));
  }
  if (only.has('split-scale-out')) {
    // Starts its own cluster (tools/cluster: needs nats-server and haproxy), Jobs replicas pinned.
    process.stderr.write('split-scale-out...\n');
    execFileSync('sync');
    rows.push(...(await splitScaleOut(ctx)));
  }
  if (only.has('rpc-server')) {
    // Two servers in processes of their own, no service stack.
    process.stderr.write('rpc-server...\n');
    rows.push(...(await rpcServer(ctx)));
  }
  if (only.has('account-quota')) {
    // Billing's own service in this process: its cost per call does not need the whole stack.
    process.stderr.write('account-quota...\n');
    rows.push(await accountQuota(ctx));
  }
}

const table = markdownTable(rows);
process.stdout.write(`\n${table}\n`);
if (!values['no-write'] && !values.cluster && only.size === ALL.length && Object.keys(serviceEnv).length === 0) {
  const target = join(root, 'docs', 'benchmarks.md');
  // The hand-written findings below the generated part survive a re-run.
  const previous = await readFile(target, 'utf8').catch(() => '');
  const findings = previous.indexOf(FINDINGS);
  await writeFile(target, document(table) + (findings >= 0 ? `\n${previous.slice(findings)}` : ''));
  process.stderr.write('written to docs/benchmarks.md\n');
}
process.exitCode = rows.every((r) => r.met) ? 0 : 1;

function document(table: string): string {
  const ffmpeg = execFileSync('ffmpeg', ['-version'], { encoding: 'utf8' }).split('\n')[0];
  return `# Benchmarks

Written by \`npm run bench\` (tools/bench) on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.version}, ${ffmpeg}.
Every figure compares the service with a baseline measured in the same run on the same machine;
the service is the built \`npm start\` (all services in one process, embedded adapters), started afresh for each benchmark, with
WORKER_CONCURRENCY=${workerConcurrency}, runs ${ctx.runs}. Single requests (transcode, thumbnail, probe) are timed once it has been up ${SETTLE_MS / 1000} s.

${table}

## How each figure is taken
- **Sync transcode and thumbnail**: \`POST /ffmpeg/process\` with the input already uploaded, timed
  from the request to the full JSON answer, against bare \`ffmpeg\` with the same output options on
  a copy of the same file on the same disk. Baseline and service alternate, after one warm-up
  each, and every other round the service goes first; medians are compared (twice \`runs\`
  rounds each).
- **Split encode** (issue 42): one 2-minute 1280x720 30 fps H.264/AAC input (keyframes every
  250 frames), encoded as an async job (x264 \`-preset medium -crf 23\` to mp4, VP9 \`-b:v 2M
  -deadline good -cpu-used 4\` with Opus to webm; the job's \`created_at\` to \`completed_at\`)
  against bare ffmpeg with the same options, once each: first with the service's whole process
  tree pinned to core 0 (\`taskset -a -p\`, its ffmpeg runs inherit it; WORKER_CONCURRENCY=1)
  against bare ffmpeg pinned to core 0, which shows what splitting and joining cost; then
  unpinned with WORKER_CONCURRENCY=2 against bare ffmpeg on both cores. A row counts only if
  the job's output, downloaded, has bare ffmpeg's streams and video frame count (ffprobe
  \`-count_packets\`), and its duration and audio and video start times within one frame.
- **Split encode scale-out** (issue 42): the same input and encodes on \`npm run cluster\`'s
  topology (tools/cluster; needs nats-server and haproxy) with two Jobs replicas and one of
  every other process, WORKER_CONCURRENCY=1 and PARALLEL_ENCODE=auto: jobs-1's whole process
  tree pinned to core 0 and jobs-2's to core 1 (\`taskset -a -p\`, their ffmpeg runs inherit it;
  checked every fifth poll), standing for two one-core machines; the gateway, the other services,
  NATS, the stores and haproxy unpinned. The clip is uploaded through the signed URL and the
  task run as an async job of a fresh account (its \`created_at\` to \`completed_at\`), against
  bare ffmpeg with the same options pinned to core 0 (\`taskset -c 0\`), run just before it while
  the cluster idles; once each. The figure is bare's time over the job's (target 1.8x); the row
  also gives the job's \`split_parts\`, how many of them the replica that did not take the job ran
  (its "ran part ... for another worker" log lines) and each Jobs replica's CPU over the job. The output is checked against bare's as above.
- **Probe**: \`POST /ffprobe/analyze\` asking for format and streams, against bare
  \`ffprobe -show_format -show_streams -print_format json\` on the same file, alternating in the
  same way (twice \`runs\` rounds).
- **Transfer**: a 1 GB file of random bytes is PUT to a signed upload URL with curl and then
  fetched from the signed download URL into a file, against \`cp\` of the same file on the same
  disk; medians of throughput over four rounds. Each timed step starts after a \`sync\` and
  right after 1 GB of scratch data was written and deleted, so every step (cp's too) finds a
  gigabyte of memory just freed: this VM hands memory that stays free for a few seconds back to
  its host, and taking it again costs seconds (see Findings). For reference,
  each round also moves the file through a bare node:http server (stream to a file with fsync,
  stream out of it, Node's default settings) in its own process. The RSS of the service process
  is sampled every 20 ms across all transfers.
- **Transfer ceilings** (built with cc when there is one): each round also moves the file with
  the bench's zero-copy peer (tools/bench/native/zero-copy-http.c), in which no byte enters user
  space: its server sends GET bodies with \`sendfile\` and writes PUT bodies with \`splice\`,
  on disk before its 200 as the service's are (writeback started every 8 MB, fsync at the end);
  its client uploads with \`sendfile\` and downloads with \`splice\`. curl against that server
  is what any server could reach here with curl as the client; the zero-copy client against it
  and against the service takes the client out of the way. Same rounds, same preparation.
- **Resumable uploads** (issue 44): a 400 MB file of random bytes, made once, uploaded to a fresh
  signed URL each time on the local-disk backend, in rounds of five that turn their order by one
  each round: the plain PUT with curl (the baseline); tus with tus-js-client (the URL as
  \`endpoint\` and \`uploadUrl\`, from a file stream, in a process of its own) in one PATCH and
  in PATCHes of 50 MB; and for reference the plain PUT with Node's HTTP client (its own process:
  what tus-js-client sends with) and tus with curl (POST with \`Upload-Length\`, then one PATCH:
  the PUT's client). Each is timed to its last answer and checked stored whole (\`GET /file\`
  gives its size), every step prepared as in the transfers; medians of four rounds (\`runs\`/2,
  at least 3). The RSS of the service process is sampled every 20 ms, and its peak during each
  kind's steps compared with its RSS at the start.
- **URL-input download**: the same 1 GB file served over HTTPS by a bare node:https server in its
  own process on loopback, fetched into a file by the service's fetcher (\`fetchToFile\`, what a
  Jobs or Probe worker runs for an https input: address checks, pinned connection, counted body),
  against curl fetching it from the same server to the same disk. Alternating, after one warm-up
  each, four rounds each, every step prepared as in the transfers. The fetcher runs in the
  bench's own process. The issue sets no target here; 0.8x of curl is mine.
- **GET /job**: autocannon with 10 connections for 5 s, five rounds alternating with a bare
  Fastify hello-world process; then a 5 s run at half of the service's median rate for its p99
  latency. Requests turn through 4,000 keys of one account, so every request is authenticated
  and counted against a key's 300-a-minute limit without reaching it. A warm-up sends every key
  once per connection first, so the gateway has met each key, as it has any key in use. The job
  polled has completed (answered from the gateway's memory, see docs/api/conventions.md). A single non-2xx answer
  fails the benchmark.
- **Async jobs**: 1,000 jobs over 20 accounts (50 each, the per-account limit of jobs at once),
  all submitted at once; the rate is 1,000 divided by the time from the first submission to the
  last \`completed_at\` (each account polls its count of finished jobs every 2 s to find the
  end). The baseline is WORKER_CONCURRENCY times the rate of bare \`ffmpeg\` running the same
  task repeatedly. For reference, WORKER_CONCURRENCY loops of that bare ffmpeg also run at
  once (50 runs each), sharing the cores as the workers do. The benchmark fails unless every job
  completed and is charged once. Where the CPU went is read from /proc over the same span: the
  service process's own CPU and its children's (its ffmpeg fork servers with the runs they
  forked, or ffmpeg with its sandbox wrappers when runs start directly), each per job, bare
  ffmpeg's children's CPU per run, and the bench process's own (the client). The baseline is
  bare \`ffmpeg\` exec'd for each run, as the issue sets it: the service forks its runs from a
  fork server (docs/decisions/0004-fork-server.md), so it skips the dynamic loading that bare ffmpeg pays on
  every run; \`--service-env FFMPEG_FORK_SERVER=false\` measures the service exec'ing each run.
- **URL-input jobs**: 30 async thumbnail jobs of one account, all submitted at once, whose input
  is the transcode's clip at an HTTPS URL on a loopback server that sends at 100 Mbit/s (a remote
  file; the service is told to treat 127.0.0.2 as public). The service as shipped, which stages
  the next pending jobs' inputs while every slot is busy, against the same service with
  \`JOB_STAGE_AHEAD=0\`; three rounds each, alternating, each on a freshly started service; the
  rate is taken as for the async jobs. The issue sets no target here: staging ahead must not make
  it slower.
- **Fair share**: account B's tiny async job, timed by the service's own \`created_at\` and
  \`completed_at\`, five times on an idle service, then five times while account A has 40 jobs of
  3 s each queued (\`-re\`: real time, little CPU) and every slot busy with them. Medians are
  compared; with fair claiming B waits for one of A's jobs to end, not for A's backlog.
- **Capacity share**: account B's tiny async job, timed the same way, \`runs\` times on an idle
  service, then \`runs\` times while account A's two long paced async jobs (the clip looped to 60 s,
  \`-re\`) hold every slot (the bench waits until they do again before each of B's jobs); each
  round B also sends the same task to \`POST /ffmpeg/process\`, which must not answer 503.
  Medians are compared; target 1.2x. B's job takes the slot of A's youngest run, which is
  stopped and requeued (docs/api/processing.md, "No account captures the slots").
- **GET /account**: Billing's \`GetQuota\` (what \`GET /account\` asks for the month's total) in
  this process, on an embedded store holding 1,000,000 usage rows of one account spread over the
  month so far (stored through the charge ingestor), against an account with none; medians of
  200 alternating calls after one that sums every hour.
`;
}
