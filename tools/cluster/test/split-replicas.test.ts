// A split job's parts spread over two Jobs replicas (issue 42, item 3), on the cluster as the chart
// runs it (NATS JetStream, the MongoDB-wire server, S3): with one slot per replica, the replica
// that did not take the job encodes some of its parts; killed with SIGKILL while it encodes one,
// the part is encoded again, the job completes with every frame and is charged once; no part is
// left behind in the store, nor (first test) in either replica's work directory.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder, tempDir, underCI, waitFor } from '@media/testkit';
import { callApi } from './api.js';
import { missingBinaries, startCluster, type Cluster } from '../src/index.js';

const { missing, hint } = missingBinaries();
const skip = missing.length > 0 && !underCI;
if (skip) console.warn(`tools/cluster: skipped, ${missing.join(' and ')} missing (${hint})`);
const suite = skip ? describe.skip : describe;

const SECONDS = 16;
const FPS = 25;
const JOBS = ['jobs-1', 'jobs-2'] as const;

suite('split parts across Jobs replicas', () => {
  let cluster: Cluster;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let key: string;
  let filePath: string;
  const crashes: string[] = [];

  beforeAll(async () => {
    dir = await tempDir('split-replicas-');
    cluster = await startCluster({
      replicas: 1,
      replicasOf: { jobs: 2 },
      env: {
        // One slot each: a part runs on the other replica only through the work queue.
        WORKER_CONCURRENCY: '1',
        PARALLEL_MIN_INPUT_SEC: '5',
        PARALLEL_PART_SEC: '2',
        // A replica killed mid-part is noticed within a few seconds.
        JOB_LEASE_SEC: '3',
        JOB_SCAN_INTERVAL_MS: '500',
        LOG_LEVEL: 'info',
      },
      onUnexpectedExit: (name, how, log) => crashes.push(`${name} (${how}): ${log.slice(-2000)}`),
    });
    const { account_id } = await cluster.admin('account', 'create');
    key = String((await cluster.admin('key', 'create', '--account', String(account_id), '--name', 'split')).authorization);
    // 16 s at 640x360 with a keyframe every second: 8 parts of 2 s, each a second or two of x264 veryslow.
    const clip = join(dir.path, 'in.mp4');
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', `testsrc2=duration=${SECONDS}:size=640x360:rate=${FPS}`],
      ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}`],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', String(FPS), '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', clip],
    ]);
    const reg = await api('POST', '/file', { file_name: 'in.mp4' });
    const put = await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: readFileSync(clip) });
    expect(put.status).toBe(200);
    filePath = reg.body.file.file_path;
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    await dir?.remove();
  }, 120_000);

  const api = (method: string, path: string, body?: unknown) => callApi(cluster.publicUrl, key, method, path, body);

  const submit = async (name: string) => {
    const res = await api('POST', '/ffmpeg/process/async', {
      task: {
        inputs: [{ file_path: filePath }],
        outputs: [{ file: name, options: ['-c:v', 'libx264', '-preset', 'veryslow', '-crf', '30', '-c:a', 'aac'] }],
      },
    });
    expect(res.status).toBe(202);
    return String(res.body.job_id);
  };

  const finished = async (jobId: string) => {
    let job: Record<string, any> = {};
    await waitFor(
      `job ${jobId} ended`,
      async () => {
        job = (await api('GET', `/job/${jobId}`)).body;
        return ['completed', 'failed'].includes(job.status);
      },
      180_000,
    );
    return job;
  };

  /** Frames and duration of a result, as ffprobe reads it from its download URL. */
  const probe = (url: string) => {
    const out = execFileSync('ffprobe', [
      ...['-v', 'error', '-count_frames', '-select_streams', 'v:0'],
      ...['-show_entries', 'stream=nb_read_frames:format=duration', '-of', 'json', url],
    ]).toString();
    const json = JSON.parse(out) as { streams: { nb_read_frames: string }[]; format: { duration: string } };
    return { frames: Number(json.streams[0]!.nb_read_frames), duration: Number(json.format.duration) };
  };

  const usageRowsOf = async (jobId: string) => {
    const res = await api('GET', '/account/usage?format=json&limit=1000');
    return (res.body.rows as { request_id: string }[]).filter((r) => r.request_id === jobId).length;
  };

  /** The replica whose log says `line` (about job `jobId`). */
  const saying = (line: RegExp) => JOBS.find((name) => line.test(cluster.get(name).log()));

  /** Keys s3rver holds under parts/ (the parts Storage keeps between replicas). */
  const storedParts = async () => (await filesUnder(cluster.get('s3').spec.env.S3RVER_DIR!)).filter((f) => f.includes('/parts/'));

  test('the replica that did not take the job encodes some of its parts', async () => {
    const jobId = await submit('spread.mp4');
    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'completed', split_parts: 8 });
    const owner = saying(new RegExp(`ran split into 8 parts.*${jobId}|${jobId}.*ran split into 8 parts`));
    expect(owner).toBeDefined();
    const other = JOBS.find((n) => n !== owner)!;
    expect(cluster.get(other).log()).toMatch(new RegExp(`ran part \\d+ of job ${jobId} for another worker`));
    expect(probe(job.result[0].download_url)).toMatchObject({ frames: SECONDS * FPS });
    expect(Math.abs(probe(job.result[0].download_url).duration - SECONDS)).toBeLessThan(0.1);
    await waitFor('one usage row', async () => (await usageRowsOf(jobId)) === 1, 20_000);
    expect(await storedParts()).toEqual([]);
    // The other replica keeps the job's staged inputs for a while for its next part, then removes them.
    await waitFor(
      'both work directories empty',
      () => JOBS.every((n) => readdirSync(cluster.get(n).spec.env.WORK_DIR!).length === 0),
      60_000,
    );
    expect(crashes).toEqual([]);
  }, 240_000);

  test('a replica killed while it encodes a part: the part is encoded again, the job completes, charged once', async () => {
    const jobId = await submit('killed.mp4');
    const started = new RegExp(`encoding part \\d+ of job ${jobId} for another worker`);
    const victim = await waitFor('a part of the job encoding on the other replica', () => saying(started), 120_000);
    await cluster.kill(victim, 'SIGKILL');
    const job = await finished(jobId);
    expect(job).toMatchObject({ status: 'completed', split_parts: 8 });
    const owner = JOBS.find((n) => n !== victim)!;
    expect(cluster.get(owner).log()).toMatch(/a part whose worker stopped is encoded again/);
    expect(probe(job.result[0].download_url).frames).toBe(SECONDS * FPS);
    await waitFor('one usage row', async () => (await usageRowsOf(jobId)) === 1, 20_000);
    expect(await storedParts()).toEqual([]);
  }, 240_000);
});
