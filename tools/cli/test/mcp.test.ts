// `media mcp` as an agent uses it: the official SDK's client spawns `node tools/cli/bin/media.mjs
// mcp` over stdio against `npm start`, lists the tools, uploads a clip, transcodes it async,
// follows the job's progress, downloads the result and checks it with ffprobe; a refused option
// comes back as a tool error carrying the service's sentence.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Spawned, startHttpsServer, type TestHttpsServer } from '@media/testkit';
import { execFileP, makeClip, mediaJs, stackWithKey } from './harness.js';

let stack: Spawned;
let files: TestHttpsServer;
let dir: string;
let client: Client;
let apiKey: string;
let stderr = '';
const protocolErrors: Error[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-mcp-'));
  ({ stack, key: apiKey } = await stackWithKey('mcp'));
  await makeClip(join(dir, 'in.mp4'));
  // A loopback HTTPS server for the URL upload: the clip with its Content-Length, or chunked.
  const clip = await readFile(join(dir, 'in.mp4'));
  files = await startHttpsServer({
    host: '127.0.0.1',
    handler: (req, res) => {
      if (req.url === '/chunked.mp4') res.writeHead(200, { 'transfer-encoding': 'chunked' }).end(clip);
      else if (req.url === '/moved.mp4') res.writeHead(302, { location: '/media/moved.mp4' }).end();
      // To plain http on this machine: the upload must not follow it.
      else if (req.url === '/to-http.mp4') res.writeHead(302, { location: `http://127.0.0.1:9/x.mp4` }).end();
      else res.writeHead(200, { 'content-length': clip.length }).end(clip);
    },
  });
  await writeFile(join(dir, 'ca.pem'), files.ca);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [mediaJs, 'mcp'],
    env: {
      PATH: process.env.PATH!,
      MEDIA_API_URL: stack.baseUrl,
      MEDIA_API_KEY: apiKey,
      NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
      // upload_file records resumable uploads in the CLI's cache: this test's, not the home's.
      XDG_CACHE_HOME: join(dir, 'cache'),
    },
    cwd: dir,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'mcp-test', version: '1.0.0' });
  // Anything but the protocol on stdout would surface here as a parse error.
  client.onerror = (err) => protocolErrors.push(err);
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await files?.stop();
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

type Structured = Record<string, any>;

async function call(name: string, args: Record<string, unknown>) {
  const res = await client.callTool({ name, arguments: args });
  return {
    isError: Boolean(res.isError),
    text: (res.content as { type: string; text: string }[])[0]?.text ?? '',
    data: res.structuredContent as Structured,
  };
}

async function ffprobe(path: string) {
  const { stdout } = await execFileP('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_name,width:format=duration',
    '-of',
    'json',
    path,
  ]);
  return JSON.parse(stdout) as { streams: { codec_name: string; width: number }[]; format: { duration: string } };
}

test('lists every tool with a description and an input schema', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(
    [
      'cancel_job',
      'download_link',
      'job_status',
      'list_files',
      'list_jobs',
      'policy_lookup',
      'probe_media',
      'run_task',
      'upload_file',
      'usage',
    ].sort(),
  );
  for (const tool of tools) {
    expect(tool.description?.length).toBeGreaterThan(60);
    expect(tool.inputSchema.type).toBe('object');
  }
  // The task model and where the policy is, for an agent writing a task.
  const run = tools.find((t) => t.name === 'run_task')!;
  expect(run.description).toContain('filter_complex');
  expect(run.description).toContain('docs/ffmpeg-policy.md');
  expect(run.inputSchema.properties).toHaveProperty('task');
});

test('policy_lookup answers the published verdict on a name', async () => {
  const nvenc = await call('policy_lookup', { name: 'h264_nvenc' });
  expect(nvenc.data.matches).toEqual([
    {
      kind: 'encoder',
      name: 'h264_nvenc',
      verdict: expect.objectContaining({ verdict: 'refuse', instead: expect.stringContaining('libx264') }),
    },
  ]);
  const codec = await call('policy_lookup', { name: '-c:v' });
  expect(codec.data.matches).toEqual([{ kind: 'option', name: '-c', verdict: expect.objectContaining({ status: 'allowed' }) }]);
  const input = await call('policy_lookup', { name: '-i' });
  expect(input.data.matches[0].verdict).toMatchObject({ status: 'refused', instead: 'add the file to task.inputs' });
  // A format found by any name of its list.
  const ssegment = await call('policy_lookup', { name: 'ssegment' });
  expect(ssegment.data.matches).toEqual([
    { kind: 'muxer', name: 'stream_segment,ssegment', verdict: expect.objectContaining({ verdict: 'refuse' }) },
  ]);
  const unknown = await call('policy_lookup', { name: 'nosuchfilter' });
  expect(unknown.data).toMatchObject({ matches: [], note: expect.stringContaining('judged by their type') });
});

test('upload, async transcode followed to the end with progress, download checked with ffprobe', async () => {
  const up = await call('upload_file', { path: join(dir, 'in.mp4') });
  expect(up.isError).toBe(false);
  expect(up.data).toMatchObject({ file_path: expect.stringMatching(/^dir_[a-z0-9]+\/in\.mp4$/), file_name: 'in.mp4' });
  expect(up.data.size_bytes).toBeGreaterThan(0);

  // -re reads the 2 s clip at real time, so the job is seen processing with ffmpeg's progress.
  const queued = await call('run_task', {
    async: true,
    task: {
      inputs: [{ file_path: up.data.file_path, options: ['-re'] }],
      outputs: [{ file: 'out.mp4', options: ['-c:v', 'libx264', '-preset', 'ultrafast', '-vf', 'scale=80:-2'] }],
    },
  });
  expect(queued.isError).toBe(false);
  expect(queued.data).toMatchObject({ status: 'pending', job_id: expect.stringMatching(/^job_/) });

  const seen: Structured[] = [];
  const deadline = Date.now() + 45_000;
  let job: Structured;
  do {
    job = (await call('job_status', { job_id: queued.data.job_id })).data;
    seen.push(job);
    if (['completed', 'failed', 'cancelled'].includes(job.status)) break;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < deadline);
  expect(job.status).toBe('completed');
  const percents = seen.map((s) => s.progress.percent as number);
  expect(percents.every((p) => p >= 0 && p <= 100)).toBe(true);
  expect(percents).toEqual([...percents].sort((a, b) => a - b));
  expect(job.progress).toEqual({ percent: 100, eta_sec: 0 });
  // ffmpeg's own figures, once it reports (every second while it runs).
  const reported = seen.filter((s) => s.status === 'processing' && 'fps' in s.progress);
  expect(reported.length).toBeGreaterThan(0);
  for (const { progress } of reported)
    expect(progress).toEqual({
      percent: expect.any(Number),
      fps: expect.any(Number),
      speed: expect.any(Number),
      eta_sec: progress.eta_sec === null ? null : expect.any(Number),
    });

  expect(job.result).toEqual([{ file_name: 'out.mp4', size_bytes: expect.any(Number), download_url: expect.stringMatching(/^http/) }]);
  expect(job.usage.gb_sec).toBeGreaterThan(0);
  const res = await fetch(job.result[0].download_url);
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(bytes.length).toBe(job.result[0].size_bytes);
  await writeFile(join(dir, 'out.mp4'), bytes);
  const probed = await ffprobe(join(dir, 'out.mp4'));
  expect(probed.streams).toEqual([{ codec_name: 'h264', width: 80 }]);
  expect(Number(probed.format.duration)).toBeCloseTo(2, 0);

  // The same job waited for in one call, listed, and a fresh link to its output.
  expect((await call('job_status', { job_id: queued.data.job_id, wait_sec: 5 })).data.status).toBe('completed');
  const list = await call('list_jobs', { limit: 5 });
  expect(list.data.jobs.map((j: Structured) => j.id)).toContain(queued.data.job_id);
  const link = await call('download_link', { file_path: `${up.data.dir_id}/out.mp4` });
  expect(link.data).toMatchObject({ file_path: `${up.data.dir_id}/out.mp4`, file_size: job.result[0].size_bytes });
}, 90_000);

test('a refused option is a tool error with the service sentence; so is a misspelt field', async () => {
  const up = await call('upload_file', { path: join(dir, 'in.mp4') });
  const refused = await call('run_task', {
    task: { inputs: [{ file_path: up.data.file_path }], outputs: [{ file: 'o.mp4', options: ['-i', 'other.mp4'] }] },
  });
  expect(refused.isError).toBe(true);
  expect(refused.text).toMatch(/^400: .*-i\b.*task\.inputs/);

  const missing = await call('job_status', { job_id: 'job_doesnotexist' });
  expect(missing).toMatchObject({ isError: true, text: expect.stringMatching(/^404: Job not found/) });

  const misspelt = await call('run_task', { task: { inputs: [{ file_path: up.data.file_path }], output: [{ file: 'o.mp4' }] } });
  expect(misspelt.isError).toBe(true);
  expect(misspelt.text).toMatch(/outputs/);

  const noFile = await call('upload_file', { path: join(dir, 'nope.mp4') });
  expect(noFile).toMatchObject({ isError: true, text: expect.stringContaining('nope.mp4: no such file') });
});

test('upload from an https URL into an existing directory; one without Content-Length is a tool error', async () => {
  const first = await call('upload_file', { path: join(dir, 'in.mp4') });
  const fromUrl = await call('upload_file', {
    url: `${files.url}/media/clip%20one.mp4`,
    dir_id: first.data.dir_id,
  });
  expect(fromUrl.isError).toBe(false);
  expect(fromUrl.data).toMatchObject({ file_path: `${first.data.dir_id}/clip one.mp4`, size_bytes: first.data.size_bytes });
  const listed = await call('list_files', { dir_id: first.data.dir_id });
  expect(listed.data.files.map((f: Structured) => f.file_path).sort()).toEqual([`${first.data.dir_id}/clip one.mp4`, first.data.file_path]);

  const chunked = await call('upload_file', { url: `${files.url}/chunked.mp4` });
  expect(chunked).toMatchObject({ isError: true, text: expect.stringContaining('sent no Content-Length') });
  const plain = await call('upload_file', { url: 'http://localhost/x.mp4' });
  expect(plain).toMatchObject({ isError: true, text: expect.stringContaining('only https:// URLs') });
  const moved = await call('upload_file', { url: `${files.url}/moved.mp4`, dir_id: first.data.dir_id });
  expect(moved.data).toMatchObject({ file_path: `${first.data.dir_id}/moved.mp4`, size_bytes: first.data.size_bytes });
  const toHttp = await call('upload_file', { url: `${files.url}/to-http.mp4` });
  expect(toHttp).toMatchObject({ isError: true, text: expect.stringContaining('redirected to http://127.0.0.1:9') });
});

test('probe a stored file; usage totals the charges', async () => {
  const up = await call('upload_file', { path: join(dir, 'in.mp4') });
  const probe = await call('probe_media', { file_path: up.data.file_path, probe: { streams: ['codec_name', 'width', 'height'] } });
  expect(probe.isError).toBe(false);
  expect(probe.data.result).toEqual({ streams: [{ codec_name: 'h264', width: 160, height: 120 }] });
  expect(probe.data.amount_usd).toBeGreaterThan(0);

  // Charges reach Billing as events, moments after the answers that made them: the job and the probe.
  let usage: Structured;
  const deadline = Date.now() + 10_000;
  for (;;) {
    usage = (await call('usage', {})).data;
    if (usage.requests >= 2 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200)); // each look is an API request, rate-limited
  }
  expect(usage.requests).toBe(2);
  expect(usage.latest_rows.map((r: Structured) => r.request_id)).toContain(probe.data.request_id);
  expect(usage.amount_usd).toBeGreaterThan(0);
  expect(usage.account).toMatchObject({ limits: { parallel_jobs: 50 } });

  expect(protocolErrors).toEqual([]);
  expect(stderr).not.toMatch(/error/i);
});

describe('over Streamable HTTP (--http): each caller with its own key', () => {
  let server: ChildProcess;
  let url: URL;

  beforeAll(async () => {
    // No MEDIA_API_KEY: the process holds none of its own.
    server = spawn(process.execPath, [mediaJs, 'mcp', '--http', '0'], {
      env: { PATH: process.env.PATH!, MEDIA_API_URL: stack.baseUrl },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let said = '';
    server.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
    });
    const deadline = Date.now() + 20_000;
    while (!/http:\/\/\S+\/mcp/.test(said)) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`media mcp --http did not start: ${said}`);
      await Promise.race([once(server.stderr!, 'data'), once(server, 'exit')]);
    }
    url = new URL(/http:\/\/\S+\/mcp/.exec(said)![0]);
  }, 30_000);
  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
  });

  const connect = async (authorization?: string) => {
    const remote = new Client({ name: 'mcp-http-test', version: '1.0.0' });
    const headers: Record<string, string> = authorization ? { authorization } : {};
    await remote.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    return remote;
  };

  test('tools without upload_file; a task runs and a refusal is a tool error', async () => {
    const remote = await connect(`Bearer ${apiKey}`);
    try {
      const names = (await remote.listTools()).tools.map((t) => t.name);
      expect(names).toContain('run_task');
      expect(names).not.toContain('upload_file');
      expect(remote.getInstructions()).toContain('Over HTTP there is no upload_file');

      const up = await call('upload_file', { path: join(dir, 'in.mp4') }); // through the stdio server
      const run = await remote.callTool({
        name: 'run_task',
        arguments: { task: { inputs: [{ file_path: up.data.file_path }], outputs: [{ file: 'still.png', options: ['-frames:v', '1'] }] } },
      });
      expect(run.isError).toBeFalsy();
      expect(run.structuredContent).toMatchObject({ status: 'completed', result: [{ file_name: 'still.png' }] });
      const refused = await remote.callTool({
        name: 'run_task',
        arguments: { task: { inputs: [{ file_path: up.data.file_path }], outputs: [{ file: 'x.mp4', options: ['-i', 'y.mp4'] }] } },
      });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]!.text).toMatch(/^400: Option '-i' is not allowed/);
    } finally {
      await remote.close();
    }
  }, 60_000);

  test('no key or a wrong key: 401, a refused account: 403, before any tool; only POST on /mcp', async () => {
    await expect(connect()).rejects.toThrow(/401|Authorization Header Required/);
    await expect(connect('Bearer mk_wrong')).rejects.toThrow(/Invalid API key/);
    // A valid key the API refuses answers with the API's own status and sentence.
    const { account_id } = await stack.admin('account', 'create', '--status', 'no_card');
    const { key } = await stack.admin('key', 'create', '--account', String(account_id), '--name', 'no-card');
    await expect(connect(`Bearer ${key}`)).rejects.toThrow(/Add a card at .* to start using the API/);
    const noCard = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(noCard.status).toBe(403);
    const get = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(get.status).toBe(405);
    expect((await fetch(new URL('/other', url), { method: 'POST' })).status).toBe(404);
  });
});
