// `media upload` resumes (tus on the local-disk upload URL): a run interrupted with Ctrl-C
// (SIGINT) once the service has part of the file, then the same command again, continues from the
// offset the service kept, sends only the rest, and the file is listed and byte-identical. An
// entry whose URL expired starts over, and says why. Against `npm start` (local disk).
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaClient } from '@media/client';
import type { Spawned } from '@media/testkit';
import {
  type Entry,
  entries as entriesIn,
  expiryOf,
  mediaJs,
  offsetOf,
  partBytes,
  poll,
  runMedia as runIn,
  stackWithKey,
  storageFile as storageIn,
} from './harness.js';

const SIZE = 20 * 1024 * 1024;

let stack: Spawned;
let dir: string;
let env: Record<string, string>;
let media: MediaClient;
let data: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-cli-resume-'));
  const { stack: s, key } = await stackWithKey('cli');
  stack = s;
  // TZ fixed: the Ctrl-C message gives a time of day.
  env = { PATH: process.env.PATH!, MEDIA_API_URL: stack.baseUrl, MEDIA_API_KEY: key, XDG_CACHE_HOME: join(dir, 'cache'), TZ: 'UTC' };
  media = new MediaClient({ baseUrl: stack.baseUrl, apiKey: key });
  data = randomBytes(SIZE);
  await writeFile(join(dir, 'big.bin'), data);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

const runMedia = (args: string[]) => runIn(args, env, dir);
const storageFile = () => storageIn(join(dir, 'cache'));
const entries = () => entriesIn(join(dir, 'cache'));

const exited = (proc: ChildProcess) => new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A time of day (UTC, as the CLI says it with TZ=UTC) as the Date it names, the nearest to `near`. */
function timeOfDay(hms: string, near: Date): Date {
  const day = near.toISOString().slice(0, 10);
  const at = new Date(`${day}T${hms}Z`);
  const halfDay = 12 * 3600_000;
  if (at.getTime() - near.getTime() > halfDay) return new Date(at.getTime() - 2 * halfDay);
  if (near.getTime() - at.getTime() > halfDay) return new Date(at.getTime() + 2 * halfDay);
  return at;
}

/**
 * Starts `media <args>` and interrupts it with SIGINT once the service reports part of `name`:
 * the URL and the offset the service kept. Undefined when the upload ended before it could be cut
 * (a fast machine): the caller tries again on a fresh entry.
 */
async function interruptedUpload(
  args: string[],
  name = 'big.bin',
): Promise<{ url: string; kept: number; stdout: string; stderr: string; entry: Entry } | undefined> {
  const proc = spawn(process.execPath, [mediaJs, ...args], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  proc.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  proc.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  let ended = false;
  const done = exited(proc).then((code) => {
    ended = true;
    return code;
  });
  const before = new Set((await entries()).map((e) => e.uploadUrl));
  const entry = await poll(
    async () => (await entries()).find((e) => e.metadata.filename === name && !before.has(e.uploadUrl)),
    30_000,
    () => ended,
  );
  const partial =
    entry &&
    (await poll(
      async () => ((n) => (n > 0 && n < SIZE ? n : undefined))(await partBytes(stack, entry.uploadUrl)),
      30_000,
      () => ended,
    ));
  const cutAt = Date.now();
  if (!ended) proc.kill('SIGINT');
  const code = await done;
  if (!entry || partial === undefined || code === 0) return undefined;
  // Ctrl-C says until when running the command again continues the upload (the service's
  // expiry as its last answer gave it: never later than what the service says now), exit 130.
  expect(code).toBe(130);
  const said = /continue the upload of ([^ ]+) from where the service stopped; continue it before (\d\d:\d\d:\d\d)\n$/.exec(stderr);
  expect(said?.[1]).toBe(name);
  const expiry = await expiryOf(entry.uploadUrl);
  const until = timeOfDay(said![2]!, expiry);
  expect(until.getTime()).toBeLessThanOrEqual(expiry.getTime());
  // The cut PATCH ended at Ctrl-C: 5 minutes from then (the time of day, to the second).
  expect(until.getTime()).toBeGreaterThanOrEqual(cutAt + 5 * 60_000 - 1000);
  expect(until.getTime()).toBeGreaterThan(Date.parse(entry.metadata.added_on!));
  return { url: entry.uploadUrl, kept: await offsetOf(entry.uploadUrl), stdout, stderr, entry };
}

let touches = 0;
/** An interrupted upload; a few tries, in case one ends before the SIGINT lands. */
async function cutUpload(args = ['upload', 'big.bin'], name = 'big.bin') {
  let cut: Awaited<ReturnType<typeof interruptedUpload>>;
  for (let attempt = 0; attempt < 3 && !cut; attempt++) {
    // A new mtime is a new file to the CLI: an earlier attempt's entry is not resumed.
    await utimes(join(dir, name), new Date(), new Date(Date.now() + ++touches * 1000));
    cut = await interruptedUpload(args, name);
  }
  expect(cut).toBeDefined();
  return cut!;
}

test('media upload interrupted by Ctrl-C, run again: continues from the offset the service kept', async () => {
  const cut = await cutUpload();
  const { url, kept, entry } = cut;
  expect(kept).toBeGreaterThan(0);
  expect(kept).toBeLessThan(SIZE);
  const filePath = entry.metadata.file_path!;

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
  expect(url).toBe(entry.uploadUrl);

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

test('an entry the service no longer takes starts over, and says why', async () => {
  const { entry } = await cutUpload();
  // Its URL made foreign (as one whose expiry passed is refused, in other words).
  const raw = JSON.parse(await readFile(storageFile(), 'utf8')) as Record<string, Entry>;
  for (const e of Object.values(raw)) e.uploadUrl = e.uploadUrl.replace(/sig=[^&]+/, 'sig=AAAA');
  await writeFile(storageFile(), JSON.stringify(raw));

  const again = await runMedia(['upload', 'big.bin']);
  expect(again.stderr).toContain(
    `the interrupted upload of big.bin (${entry.metadata.file_path}) cannot continue (403: The upload was refused: The signature of this URL is not valid.): uploading from the start`,
  );
  expect(again.stderr).not.toContain('resuming');
  expect(again.code).toBe(0);
  const filePath = again.stdout.trim();
  expect(filePath).not.toBe(entry.metadata.file_path);
  const [dirId] = filePath.split('/') as [string];
  expect((await media.listFiles(dirId)).files.map((f: { file_name: string }) => f.file_name)).toEqual(['big.bin']);
  expect(await entries()).toEqual([]);
}, 120_000);

test('media upload a.bin big.bin cut during big.bin, run again: a.bin is not uploaded again, big.bin resumes, one directory', async () => {
  await writeFile(join(dir, 'a.bin'), randomBytes(64 * 1024));
  const cut = await cutUpload(['upload', 'a.bin', 'big.bin']);
  const filePath = cut.entry.metadata.file_path!;
  const [dirId] = filePath.split('/') as [string];
  // a.bin went whole into the directory before big.bin began.
  expect(cut.stdout).toMatch(new RegExp(`^${dirId}/a\\.bin\n$`));

  const again = await runMedia(['upload', 'a.bin', 'big.bin']);
  expect(again.code).toBe(0);
  expect(again.stdout).toBe(`${dirId}/a.bin\n${filePath}\n`);
  expect(again.stderr).toContain(`already uploaded a.bin: ${dirId}/a.bin (by the interrupted run of this command)`);
  expect(again.stderr).toContain(`resuming big.bin (${filePath}) at ${cut.kept} of ${SIZE} bytes`);
  expect(again.stderr).not.toMatch(/^uploaded a\.bin:/m);
  expect((await media.listFiles(dirId)).files.map((f: { file_name: string }) => f.file_name).sort()).toEqual(['a.bin', 'big.bin']);
  const { download } = await media.downloadUrl(dirId, 'big.bin');
  expect(sha256(Buffer.from(await (await fetch(download.url)).arrayBuffer()))).toBe(sha256(data));
  expect(await entries()).toEqual([]);
}, 180_000);

test('media run -i c.bin -i big.bin cut during big.bin, run again: c.bin reused there, big.bin resumes', async () => {
  await writeFile(join(dir, 'c.bin'), randomBytes(64 * 1024));
  const args = ['run', '-i', 'c.bin', '-i', 'big.bin', '-o', 'out.mp4', '--', '-c', 'copy'];
  const cut = await cutUpload(args);
  const filePath = cut.entry.metadata.file_path!;
  const [dirId] = filePath.split('/') as [string];

  // The task itself is not the point (the inputs are no media): the uploads before it are.
  const again = await runMedia(args);
  expect(again.stderr).toContain(`resuming big.bin (${filePath}) at ${cut.kept} of ${SIZE} bytes`);
  expect(again.stderr).toContain(`reused c.bin: ${dirId}/c.bin (uploaded before, same bytes`);
  expect(again.stderr).not.toMatch(/^uploaded c\.bin:/m);
  expect((await media.listFiles(dirId)).files.map((f: { file_name: string }) => f.file_name).sort()).toEqual(['big.bin', 'c.bin']);
  expect(await entries()).toEqual([]);
}, 180_000);

/** The directories of the listed file_paths (stdout of `media upload`). */
const dirsOf = (stdout: string) => [
  ...new Set(
    stdout
      .trim()
      .split('\n')
      .map((p) => p.split('/')[0]),
  ),
];

test('media upload a.bin big.bin cut, big.bin refused when run again: both go into one new directory', async () => {
  await writeFile(join(dir, 'a.bin'), randomBytes(64 * 1024));
  const cut = await cutUpload(['upload', 'a.bin', 'big.bin']);
  const [dirId] = cut.entry.metadata.file_path!.split('/') as [string];
  // The directory lives (a.bin is there) but the recorded upload is refused.
  const raw = JSON.parse(await readFile(storageFile(), 'utf8')) as Record<string, Entry>;
  for (const e of Object.values(raw)) e.uploadUrl = e.uploadUrl.replace(/sig=[^&]+/, 'sig=AAAA');
  await writeFile(storageFile(), JSON.stringify(raw));

  const again = await runMedia(['upload', 'a.bin', 'big.bin']);
  expect(again.code).toBe(0);
  expect(again.stderr).toContain('cannot continue (403: The upload was refused: The signature of this URL is not valid.)');
  const dirs = dirsOf(again.stdout);
  expect(dirs).toHaveLength(1);
  expect(dirs[0]).not.toBe(dirId);
  expect(again.stdout).toBe(`${dirs[0]}/a.bin\n${dirs[0]}/big.bin\n`);
  expect((await media.listFiles(dirs[0]!)).files.map((f: { file_name: string }) => f.file_name).sort()).toEqual(['a.bin', 'big.bin']);
  expect(await entries()).toEqual([]);
}, 180_000);

test('media upload a.bin big.bin cut, run again with reuse off: one new directory, the old upload abandoned', async () => {
  await writeFile(join(dir, 'a.bin'), randomBytes(64 * 1024));
  const cut = await cutUpload(['upload', 'a.bin', 'big.bin']);
  const filePath = cut.entry.metadata.file_path!;
  const [dirId] = filePath.split('/') as [string];

  const again = await runIn(['upload', 'a.bin', 'big.bin'], { ...env, MEDIA_NO_REUSE: '1' }, dir);
  expect(again.code).toBe(0);
  expect(again.stderr).toContain(`the interrupted upload of big.bin (${filePath}) is abandoned: big.bin is uploaded anew`);
  const dirs = dirsOf(again.stdout);
  expect(dirs).toHaveLength(1);
  expect(dirs[0]).not.toBe(dirId);
  expect(again.stdout).toBe(`${dirs[0]}/a.bin\n${dirs[0]}/big.bin\n`);
  const { download } = await media.downloadUrl(dirs[0]!, 'big.bin');
  expect(sha256(Buffer.from(await (await fetch(download.url)).arrayBuffer()))).toBe(sha256(data));
  expect(await entries()).toEqual([]);
}, 180_000);

test('unfinished uploads in two directories, run together: the first continues, the other is uploaded anew into its directory', async () => {
  await writeFile(join(dir, 'big2.bin'), data);
  const first = await cutUpload(['upload', 'big.bin']);
  const second = await cutUpload(['upload', 'big2.bin'], 'big2.bin');
  const [dirId] = first.entry.metadata.file_path!.split('/') as [string];
  expect(second.entry.metadata.file_path!.startsWith(`${dirId}/`)).toBe(false);

  const again = await runMedia(['upload', 'big.bin', 'big2.bin']);
  expect(again.code).toBe(0);
  expect(again.stderr).toContain(`resuming big.bin (${first.entry.metadata.file_path}) at ${first.kept} of ${SIZE} bytes`);
  expect(again.stderr).toContain(
    `the interrupted upload of big2.bin (${second.entry.metadata.file_path}) is abandoned: big2.bin is uploaded anew, into ${dirId} with the other files`,
  );
  expect(again.stdout).toBe(`${dirId}/big.bin\n${dirId}/big2.bin\n`);
  expect(await entries()).toEqual([]);
}, 180_000);

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
