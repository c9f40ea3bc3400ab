// The `media` CLI as a user runs it (bin/media.mjs, a separate process, stderr not a terminal)
// against `npm start`: every command, the --json answers, progress lines and exit codes.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Spawned } from '@media/testkit';
import { execFileP, makeClip, runMedia, stackWithKey } from './harness.js';

let stack: Spawned;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-cli-'));
  let key: string;
  ({ stack, key } = await stackWithKey('cli'));
  // The upload cache in the test folder, not the user's.
  env = { PATH: process.env.PATH!, MEDIA_API_URL: stack.baseUrl, MEDIA_API_KEY: key, XDG_CACHE_HOME: join(dir, 'cache') };
  // A 2 s clip to transcode.
  await makeClip(join(dir, 'in.mp4'));
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `media ...` in the test folder; never throws: the exit code is part of the answer. */
const media = (args: string[], extraEnv: Record<string, string> = {}) => runMedia(args, { ...env, ...extraEnv }, dir);

test('upload: the file_path on stdout, one final progress line on a non-terminal stderr; --json the API answer', async () => {
  const plain = await media(['upload', 'in.mp4']);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toMatch(/^dir_[a-z0-9]+\/in\.mp4\n$/);
  expect(plain.stderr).toMatch(/^uploaded in\.mp4: [\d.]+ MB in [\d.]+ s \([\d.]+ MB\/s\)\n$/);

  const json = await media(['--json', 'upload', 'in.mp4']);
  expect(json.code).toBe(0);
  expect(json.stderr).toBe('');
  const answer = JSON.parse(json.stdout);
  expect(answer).toMatchObject({ ok: true, file: { file_name: 'in.mp4', file_path: expect.stringMatching(/^dir_\w+\/in\.mp4$/) } });
  // The file is there, whole.
  const files = await media(['files', answer.file.dir_id]);
  expect(files.stdout).toContain(`${answer.file.file_path}\t`);
  expect((await media(['--quiet', 'upload', 'in.mp4'])).stderr).toBe('');
});

test('run: a local input (uploaded by the test before: reused), transcoded and downloaded; async with --wait; a task file', async () => {
  const sync = await media(['run', '-i', 'in.mp4', '-o', 'out.webm', '--download', 'out', '--', '-c:v', 'libvpx-vp9', '-b:v', '100k']);
  expect(sync).toMatchObject({ code: 0, stdout: `${join('out', 'out.webm')}\n` });
  expect(sync.stderr).toMatch(
    /^reused in\.mp4: dir_\w+\/in\.mp4 .*\ndone: 1 output\(s\), [\d.e-]+ GB-s, \$[\d.e-]+\ndownloaded out\.webm: /,
  );
  const { stdout: probe } = await execFileP('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_name',
    '-of',
    'csv=p=0',
    join(dir, 'out', 'out.webm'),
  ]);
  expect(probe.trim()).toBe('vp9');

  const path = (await media(['upload', 'in.mp4'])).stdout.trim();
  const queued = await media(['--json', 'run', '-i', path, '-o', 'thumb.png', '--async', '--wait', '--', '-ss', '1', '-frames:v', '1']);
  expect(queued.code).toBe(0);
  expect(JSON.parse(queued.stdout)).toMatchObject({ ok: true, status: 'completed', result: [{ file_name: 'thumb.png' }] });

  await writeFile(
    join(dir, 'task.json'),
    JSON.stringify({ task: { inputs: [{ file_path: path }], outputs: [{ file: 'small.mp4', options: ['-vf', 'scale=80:-2'] }] } }),
  );
  const fromFile = await media(['run', 'task.json', '--async']);
  expect(fromFile.stdout).toMatch(/^job_[a-z0-9]+\n$/);
  const jobId = fromFile.stdout.trim();
  const waited = await media(['job', jobId, '--wait', '--download', 'got']);
  expect(waited.code).toBe(0);
  expect(waited.stderr).toMatch(new RegExp(`job ${jobId} completed after [\\d.]+ s\\n`));
  expect((await stat(join(dir, 'got', 'small.mp4'))).size).toBeGreaterThan(0);
}, 60_000);

test('jobs, job, probe, usage, dirs: --json prints what the API answers', async () => {
  const jobs = JSON.parse((await media(['--json', 'jobs', '--limit', '2'])).stdout);
  expect(jobs).toMatchObject({ ok: true, pagination: { limit: 2, total: 3 } });
  const one = JSON.parse((await media(['job', jobs.jobs[0].id])).stdout);
  expect(one).toMatchObject({ ok: true, job_id: jobs.jobs[0].id, status: 'completed' });

  const path = (await media(['upload', 'in.mp4'])).stdout.trim();
  const probed = JSON.parse((await media(['probe', path, '--probe', '{"streams":["codec_name"]}'])).stdout);
  expect(probed).toEqual({ streams: [{ codec_name: 'h264' }] });

  // Charges reach Billing as events, moments after the answers that made them (the probe's last).
  let csv = (await media(['usage'])).stdout.trim().split(/\r?\n/);
  for (let i = 0; i < 20 && csv.length < 5; i++) {
    await new Promise((r) => setTimeout(r, 100));
    csv = (await media(['usage'])).stdout.trim().split(/\r?\n/);
  }
  expect(csv[0]).toBe('request_id,completed_at,key_id,gb_sec,amount_usd');
  expect(csv).toHaveLength(5); // three jobs, one probe
  const rows = JSON.parse((await media(['usage', '--format', 'json'])).stdout);
  expect(rows).toHaveLength(4);
  expect(JSON.parse((await media(['--json', 'dirs'])).stdout).directories.length).toBeGreaterThan(0);
});

test('exit codes by error class, with the API sentence on stderr', async () => {
  const done = JSON.parse((await media(['--json', 'jobs', '--status', 'completed', '--limit', '1'])).stdout).jobs[0].id;
  expect(await media(['cancel', done])).toMatchObject({
    code: 5,
    stderr: expect.stringMatching(
      /^media: 409: Cannot cancel job in 'completed' status\. Only pending jobs can be cancelled\. \(request req_\w+\)\n$/,
    ),
  });
  expect(await media(['job', 'job_nope'])).toMatchObject({ code: 4, stderr: expect.stringContaining('404: Job not found') });
  expect(await media(['jobs'], { MEDIA_API_KEY: 'mk_wrong' })).toMatchObject({
    code: 3,
    stderr: expect.stringContaining('401: Invalid API key'),
  });
  expect(await media(['jobs'], { MEDIA_API_KEY: '' })).toMatchObject({ code: 2, stderr: expect.stringContaining('no API key') });
  expect(await media(['run', '-i', 'x/in.mp4'])).toMatchObject({ code: 2 });
  expect(await media(['frobnicate'])).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown command 'frobnicate'") });
  const refused = await media(['--json', 'run', '-i', 'in.mp4', '-o', 'x.mp4', '--', '-i', '/etc/passwd']);
  expect(refused.code).toBe(5);
  expect(JSON.parse(refused.stderr.trim().split('\n').at(-1)!)).toMatchObject({
    ok: false,
    status: 400,
    request_id: expect.stringMatching(/^req_/),
  });
  // A port nothing listens on: no answer (8), after the client's retries.
  const closed = await media(['jobs'], { MEDIA_API_URL: 'http://127.0.0.1:9' });
  expect(closed.code).toBe(8);
}, 60_000);

test('--help on every command', async () => {
  for (const command of ['upload', 'run', 'probe', 'jobs', 'job', 'cancel', 'usage', 'dirs', 'files']) {
    const help = await media([command, '--help']);
    expect({ command, code: help.code }).toEqual({ command, code: 0 });
    expect(help.stdout).toContain(`Usage: media ${command}`);
  }
  const top = await media(['--help']);
  expect(top.stdout).toContain('Exit codes: 0 done');
  expect(top.stdout).not.toContain(env.MEDIA_API_KEY);
});
