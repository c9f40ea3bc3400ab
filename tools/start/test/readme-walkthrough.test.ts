// The README's walk-throughs, run verbatim on a machine where 8080-8083 are taken by something
// else: npm start with the port settings the README lists set to free ports, then the console,
// CLI and curl blocks as a reader pastes them in a second terminal in the same folder (only
// MEDIA_API_URL, the variable the README tells the reader to set, points at the chosen PORT).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { acceptsConnections, adminJs, freePorts, root, spawnStack, waitFor, type Spawned } from '@media/testkit';

const run = promisify(execFile);
const TAKEN = [8080, 8081, 8082, 8083];

/** The walk-through blocks: `<!-- walkthrough: name -->` then a sh block. */
function walkthroughs(readme: string): Record<string, string> {
  return Object.fromEntries([...readme.matchAll(/<!-- walkthrough: (\w+) -->\n```sh\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!]));
}

/** The README's port settings and their defaults, from its "Ports" paragraph. */
function portSettings(readme: string): Record<string, number> {
  const paragraph = /^Ports, each from a setting:[\s\S]*?\n\n/m.exec(readme)?.[0] ?? '';
  return Object.fromEntries([...paragraph.matchAll(/`([A-Z_]*PORT)` (\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
}

/** A listener on `port` that drops every connection ("something else"); null when one is there already. */
function holdPort(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.once('error', () => resolve(null));
    server.listen(port, () => resolve(server));
  });
}

let readme: string;
let blocks: Record<string, string>;
let held: (Server | null)[];
let ports: Record<string, number>;
let cwd: string;
let stack: Spawned;
beforeAll(async () => {
  readme = await readFile(join(root, 'README.md'), 'utf8');
  blocks = walkthroughs(readme);
  held = await Promise.all(TAKEN.map(holdPort));
  const settings = Object.keys(portSettings(readme));
  const free = await freePorts(settings.length);
  ports = Object.fromEntries(settings.map((name, i) => [name, free[i]!]));
  // The reader's folder: `npm run -s admin` and `npx media` as in a clone, DATA_DIR the default.
  cwd = await mkdtemp(join(tmpdir(), 'media-readme-'));
  await writeFile(join(cwd, 'package.json'), JSON.stringify({ private: true, scripts: { admin: `node ${adminJs}` } }));
  await mkdir(join(cwd, 'node_modules/.bin'), { recursive: true });
  await symlink(join(root, 'tools/cli/bin/media.mjs'), join(cwd, 'node_modules/.bin/media'));
  // Each request's status on stderr, the bodies untouched on stdout (a newline after each).
  await writeFile(join(cwd, '.curlrc'), 'write-out = "\\n%{stderr}%{http_code} %{method} %{url_effective}\\n"\n');
  const env = Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)]));
  stack = await spawnStack({ ...env, DATA_DIR: './.data' }, undefined, cwd);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await Promise.all(held.map((s) => s && new Promise((r) => s.close(r))));
  await rm(cwd, { recursive: true, force: true });
});

/** A block as the reader runs it in terminal 2: terminal 1's line left out, MEDIA_API_URL at the chosen PORT. */
function script(name: string): string {
  const block = blocks[name];
  expect(block).toBeDefined();
  const lines = block!
    .split('\n')
    .filter((l) => !l.startsWith('npm ci && npm start'))
    .map((l) => (l.startsWith('export MEDIA_API_URL=') ? l.replace('localhost:8080', `localhost:${ports.PORT}`) : l));
  // Nothing else may name a default port: the reader would have to change it too.
  const code = lines.filter((l) => !/^\s*#/.test(l)).map((l) => l.replace(/\s+#.*$/, ''));
  expect(code.filter((l) => /:808\d/.test(l))).toEqual([]);
  return lines.join('\n');
}

async function runBlock(name: string): Promise<{ stdout: string; stderr: string }> {
  // The CLI's upload cache in the reader's folder, not this machine's ~/.cache.
  const env = { PATH: process.env.PATH!, HOME: process.env.HOME!, CURL_HOME: cwd, XDG_CACHE_HOME: join(cwd, 'cache') };
  return run('bash', ['-euo', 'pipefail', '-c', script(name)], { cwd, env, maxBuffer: 1 << 24 });
}

async function probe(file: string): Promise<string> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,width', '-of', 'csv=p=0', file]);
  return stdout.trim();
}

test('the README marks its walk-throughs and lists the port settings', () => {
  expect(Object.keys(blocks)).toEqual(['console', 'cli', 'curl']);
  expect(portSettings(readme)).toEqual({ PORT: 8080, STORAGE_HTTP_PORT: 8081, DOCS_PORT: 8082, CONSOLE_PORT: 8083, METRICS_PORT: 9464 });
});

test('8080-8083 are taken while the walk-throughs run (by this test, or by another process)', async () => {
  for (const port of TAKEN) expect({ port, taken: await acceptsConnections(port) }).toEqual({ port, taken: true });
});

test('console: an account and a one-time sign-in link on CONSOLE_PORT', async () => {
  const { stdout } = await runBlock('console');
  const link = JSON.parse(stdout.trim()) as { account_id: string; url: string };
  expect(link.account_id).toMatch(/^acc_/);
  const url = new URL(link.url);
  expect(url.port).toBe(String(ports.CONSOLE_PORT));
  const { stdout: page } = await run('curl', ['-sf', link.url], { env: { PATH: process.env.PATH! } });
  expect(page).toContain(`Sign in as ${link.account_id}`);
}, 30_000);

test('cli: a key from the admin CLI, in.mp4 made, transcoded to ./out.webm', async () => {
  await runBlock('cli');
  expect(await probe(join(cwd, 'in.mp4'))).toBe('h264,320');
  expect(await probe(join(cwd, 'out.webm'))).toBe('vp9,320');
}, 60_000);

test('curl: every request answers as the README says, the outputs are what they claim', async () => {
  const { stdout, stderr } = await runBlock('curl');
  const requests = [...stderr.matchAll(/^(\d{3}) (\w+) (\S+)$/gm)].map(([, status, method, url]) => {
    const { port, pathname } = new URL(url!);
    const path = pathname
      .replace(/dir_\w+/, 'dir_')
      .replace(/job_\w+/, 'job_')
      .replace(/^\/blob\/.*/, '/blob/...');
    return `${status} ${method} ${port} ${path}`;
  });
  const api = ports.PORT;
  expect(requests).toEqual([
    `401 GET ${api} /account`,
    `200 GET ${api} /account`,
    `200 POST ${api} /file`,
    `200 PUT ${ports.STORAGE_HTTP_PORT} /blob/...`,
    `200 GET ${api} /file/dir_/in.mp4`,
    `200 POST ${api} /ffmpeg/process`,
    `200 POST ${api} /ffmpeg/process`,
    `202 POST ${api} /ffmpeg/process/async`,
    `200 GET ${api} /job/job_`,
    `200 GET ${api} /account/usage`,
  ]);
  // The bodies: JSON lines of the two sync results, then the job; the key echoed first.
  const auth = /^Basic mk_\w+$/m.exec(stdout)![0];
  const results = stdout
    .split('\n')
    .filter((l) => l.startsWith('{"ok":true,"result"'))
    .map((l) => JSON.parse(l).result[0] as { file_name: string; download_url: string });
  expect(results.map((r) => r.file_name)).toEqual(['thumb.png', 'clip.gif']);
  const jobId = /"job_id":"(job_\w+)"/.exec(stdout)![1]!;
  const done = await waitFor(
    'the queued thumbnail',
    async () => {
      const res = await fetch(`http://127.0.0.1:${api}/job/${jobId}`, { headers: { authorization: auth } });
      const body = (await res.json()) as { status: string; result?: { file_name: string; download_url: string }[] };
      return body.status === 'completed' && body.result![0]!;
    },
    30_000,
  );
  const expected: Record<string, string> = { 'thumb.png': 'png,320', 'clip.gif': 'gif,160', 'thumb2.png': 'png,320' };
  for (const { file_name, download_url } of [...results, done]) {
    expect(new URL(download_url).port).toBe(String(ports.STORAGE_HTTP_PORT));
    const file = join(cwd, `downloaded-${file_name}`);
    await run('curl', ['-sf', '-o', file, download_url], { env: { PATH: process.env.PATH! } });
    expect({ file_name, streams: await probe(file) }).toEqual({ file_name, streams: expected[file_name] });
  }
}, 60_000);
