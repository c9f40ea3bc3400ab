// `media upload` resumes (tus on the local-disk upload URL): a run interrupted with Ctrl-C
// (SIGINT) once the service has part of the file, then the same command again, continues from the
// offset the service kept, sends only the rest, and the file is listed and byte-identical. An
// entry whose URL expired starts over, and says why. Against `npm start` (local disk).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MediaClient } from '@media/client';
import { root, spawnStack, type Spawned } from '@media/testkit';

const execFileP = promisify(execFile);
const mediaJs = join(root, 'tools/cli/bin/media.mjs');
const SIZE = 20 * 1024 * 1024;

let stack: Spawned;
let dir: string;
let env: Record<string, string>;
let media: MediaClient;
let data: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-cli-resume-'));
  stack = await spawnStack();
  const { account_id } = await stack.admin('account', 'create');
  const { key } = await stack.admin('key', 'create', '--account', String(account_id), '--name', 'cli');
  env = { PATH: process.env.PATH!, MEDIA_API_URL: stack.baseUrl, MEDIA_API_KEY: String(key), XDG_CACHE_HOME: join(dir, 'cache') };
  media = new MediaClient({ baseUrl: stack.baseUrl, apiKey: String(key) });
  data = randomBytes(SIZE);
  await writeFile(join(dir, 'big.bin'), data);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `media ...` to its end; never throws: the exit code is part of the answer. */
async function runMedia(args: string[]) {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, [mediaJs, ...args], { env, cwd: dir });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const storageFile = () => join(dir, 'cache', 'media-cli', 'tus-uploads.json');
type Entry = { uploadUrl: string; metadata: Record<string, string> };
async function entries(): Promise<Entry[]> {
  try {
    return Object.values(JSON.parse(await readFile(storageFile(), 'utf8')) as Record<string, Entry>);
  } catch {
    return [];
  }
}

/** The offset the service has for the upload on `url` (a tus HEAD), or -1 when it has none. */
async function offsetOf(url: string): Promise<number> {
  const res = await fetch(url, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
  return res.status === 200 ? Number(res.headers.get('upload-offset')) : -1;
}

/**
 * Bytes the service holds for the upload on `url`: its part file (named by the upload's id, the
 * blob key in base64url), read on disk. A tus HEAD would say the same, but it waits for the PATCH
 * in flight to give up the upload's lock, which would cut the upload itself.
 */
async function partBytes(url: string): Promise<number> {
  const id = Buffer.from(decodeURIComponent(new URL(url).pathname.slice('/blob/'.length))).toString('base64url');
  return stat(join(stack.dataDirHere, 'storage', 'tus', id)).then(
    (s) => s.size,
    () => -1,
  );
}

/** Polls `probe` until it gives a value, or the deadline passes (then undefined). */
async function poll<T>(probe: () => Promise<T | undefined>, withinMs: number, stop?: () => boolean): Promise<T | undefined> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline && !stop?.()) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 2));
  }
  return undefined;
}

const exited = (proc: ChildProcess) => new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Starts `media upload big.bin` and interrupts it with SIGINT once the service reports part of
 * the file: the URL and the offset the service kept. Undefined when the upload ended before it
 * could be cut (a fast machine): the caller tries again on a fresh entry.
 */
async function interruptedUpload(): Promise<{ url: string; kept: number; stderr: string } | undefined> {
  const proc = spawn(process.execPath, [mediaJs, 'upload', 'big.bin'], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  let ended = false;
  const done = exited(proc).then((code) => {
    ended = true;
    return code;
  });
  const entry = await poll(
    async () => (await entries())[0],
    30_000,
    () => ended,
  );
  const partial =
    entry &&
    (await poll(
      async () => ((n) => (n > 0 && n < SIZE ? n : undefined))(await partBytes(entry.uploadUrl)),
      30_000,
      () => ended,
    ));
  if (!ended) proc.kill('SIGINT');
  const code = await done;
  if (!entry || partial === undefined || code === 0) return undefined;
  // Ctrl-C says until when the command continues the upload (the URL's expiry), exit 130.
  expect(code).toBe(130);
  expect(stderr).toContain(
    `interrupted: run the same command again before ${entry.metadata.expires_at!.replace(/\.\d+Z$/, 'Z')} to continue the upload of big.bin`,
  );
  return { url: entry.uploadUrl, kept: await offsetOf(entry.uploadUrl), stderr };
}

let touches = 0;
/** An interrupted upload; a few tries, in case one ends before the SIGINT lands. */
async function cutUpload() {
  let cut: Awaited<ReturnType<typeof interruptedUpload>>;
  for (let attempt = 0; attempt < 3 && !cut; attempt++) {
    // A new mtime is a new file to the CLI: an earlier attempt's entry is not resumed.
    await utimes(join(dir, 'big.bin'), new Date(), new Date(Date.now() + ++touches * 1000));
    cut = await interruptedUpload();
  }
  expect(cut).toBeDefined();
  return cut!;
}

test('media upload interrupted by Ctrl-C, run again: continues from the offset the service kept', async () => {
  const cut = await cutUpload();
  const { url, kept } = cut;
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(SIZE);
  const [entry] = await entries();
  const filePath = entry!.metadata.file_path!;

  const record = await readFile(storageFile(), 'utf8');
  const again = await runMedia(['upload', 'big.bin']);
  expect(again.code).toBe(0);
  // The same registration (no new directory), and stderr says where it continued.
  expect(again.stdout).toBe(`${filePath}\n`);
  expect(again.stderr).toContain(`resuming big.bin (${filePath}) at ${kept} of ${SIZE} bytes`);
  // The final line counts the bytes this run sent: the rest only.
  const sentMb = ((SIZE - kept) / 1_000_000).toFixed(SIZE - kept < 10_000_000 ? 2 : 1);
  expect(again.stderr).toMatch(
    new RegExp(
      `\\nuploaded big\\.bin: ${sentMb.replace('.', '\\.')} MB in [\\d.]+ s \\([\\d.]+ MB/s\\) \\(resumed at [\\d.]+ MB of 21\\.0 MB\\)\\n$`,
    ),
  );
  // The entry is gone once the upload completed; the URL's upload is the file now.
  expect(await entries()).toEqual([]);
  expect(url).toBe(entry!.uploadUrl);

  const [dirId, name] = filePath.split('/') as [string, string];
  const listed = await media.listFiles(dirId);
  expect(listed.files.map((f: { file_name: string }) => f.file_name)).toEqual(['big.bin']);
  const { download } = await media.downloadUrl(dirId, name);
  const got = Buffer.from(await (await fetch(download.url)).arrayBuffer());
  expect(sha256(got)).toBe(sha256(data));

  // Stopped between the last byte and forgetting the record: the next run finds the file whole
  // and uploads nothing, into no new directory.
  await writeFile(storageFile(), record);
  const third = await runMedia(['upload', 'big.bin']);
  expect(third.code).toBe(0);
  expect(third.stdout).toBe(`${filePath}\n`);
  expect(third.stderr).toContain(`resuming big.bin (${filePath}) at ${SIZE} of ${SIZE} bytes`);
  expect(third.stderr).toMatch(/\nuploaded big\.bin: 0\.00 MB in [\d.]+ s \([\d.]+ MB\/s\) \(resumed at 21\.0 MB of 21\.0 MB\)\n$/);
  expect((await media.listFiles(dirId)).files).toHaveLength(1);
  expect(await entries()).toEqual([]);
}, 120_000);

test('an entry whose upload URL expired starts over, and says so', async () => {
  await cutUpload();
  // Age the entry past the URL's 5 minutes (as a run 6 minutes later would find it).
  const raw = JSON.parse(await readFile(storageFile(), 'utf8')) as Record<string, Entry>;
  for (const e of Object.values(raw)) e.metadata.expires_at = new Date(Date.now() - 60_000).toISOString();
  await writeFile(storageFile(), JSON.stringify(raw));

  const again = await runMedia(['upload', 'big.bin']);
  expect(again.code).toBe(0);
  expect(again.stderr).toContain('an upload URL is valid 5 minutes after the upload started: uploading from the start');
  expect(again.stderr).not.toContain('resuming');
  const filePath = again.stdout.trim();
  expect(filePath).not.toBe(Object.values(raw)[0]!.metadata.file_path);
  const [dirId] = filePath.split('/') as [string];
  expect((await media.listFiles(dirId)).files.map((f: { file_name: string }) => f.file_name)).toEqual(['big.bin']);
}, 120_000);

test('a damaged resume record costs the resume, not the upload', async () => {
  await writeFile(join(dir, 'small.bin'), randomBytes(256 * 1024));
  await mkdir(join(storageFile(), '..'), { recursive: true });
  await writeFile(storageFile(), '{"tus::broken');
  const up = await runMedia(['upload', 'small.bin']);
  expect(up.code).toBe(0);
  expect(up.stdout).toMatch(/^dir_[a-z0-9]+\/small\.bin\n$/);
  expect(up.stderr).toMatch(/^uploaded small\.bin: [\d.]+ MB in [\d.]+ s \([\d.]+ MB\/s\)\n$/);
  // Reset by the run, and empty again once the upload completed.
  expect(JSON.parse(await readFile(storageFile(), 'utf8'))).toEqual({});
}, 60_000);
