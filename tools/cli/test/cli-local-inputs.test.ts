// Local inputs of the `media` CLI against `npm start` (issue 43): a missing file is said before
// any request, a refused run followed by a corrected one uploads once (the CLI reuses its upload
// while the service keeps it), and refusals of a command-line task name the CLI's flags.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaClient } from '@media/client';
import type { Spawned } from '@media/testkit';
import { makeClip, runMedia, stackWithKey } from './harness.js';

let stack: Spawned;
let dir: string;
let cacheHome: string;
let key: string;
let api: MediaClient;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-cli-local-'));
  cacheHome = join(dir, 'cache');
  await mkdir(join(dir, 'clips'));
  ({ stack, key } = await stackWithKey('cli'));
  api = new MediaClient({ baseUrl: stack.baseUrl, apiKey: key, retry: false });
  await makeClip(join(dir, 'clip.mp4'), { seconds: 1, size: '96x64' });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Runs `media ...` in the test folder; never throws: the exit code is part of the answer. */
const media = (args: string[], extraEnv: Record<string, string> = {}) =>
  runMedia(
    args,
    { PATH: process.env.PATH!, MEDIA_API_URL: stack.baseUrl, MEDIA_API_KEY: key, XDG_CACHE_HOME: cacheHome, ...extraEnv },
    dir,
  );

/** The directories of the account that hold a file of this name, as the API lists them. */
async function dirsHolding(name: string): Promise<string[]> {
  const { directories } = await api.listDirectories();
  const holding: string[] = [];
  for (const d of directories) if ((await api.listFiles(d.id)).files.some((f) => f.file_name === name)) holding.push(d.id);
  return holding;
}

test('a missing local file is said before any request: exit 1, no upload, no refusal from the API', async () => {
  const before = (await api.listDirectories()).directories.length;
  expect(await media(['run', '-i', 'missing.mp4', '-o', 'out.mp4', '--', '-c:v', 'libx264'])).toEqual({
    code: 1,
    stdout: '',
    stderr: 'media: missing.mp4: no such file\n',
  });
  // The first file exists: it is not uploaded either, since the second is checked first.
  expect(await media(['run', '-i', 'clip.mp4', '-i', 'clips/gone.mp4', '-o', 'out.mp4'])).toMatchObject({
    code: 1,
    stderr: 'media: clips/gone.mp4: no such file\n',
  });
  expect(await media(['upload', 'clip.mp4', 'missing.mp4'])).toMatchObject({ code: 1, stderr: 'media: missing.mp4: no such file\n' });
  expect(await media(['probe', 'missing.mp4'])).toMatchObject({ code: 1, stderr: 'media: missing.mp4: no such file\n' });
  expect(await media(['upload', 'clips'])).toMatchObject({ code: 1, stderr: 'media: clips: not a file (a directory)\n' });
  expect((await api.listDirectories()).directories).toHaveLength(before);
  // With an API that would not answer, the same: the check makes no request.
  expect(await media(['probe', 'missing.mp4'], { MEDIA_API_URL: 'http://127.0.0.1:9' })).toMatchObject({ code: 1 });
  // <dir_id>/<name> with no such local folder is the API's file_path: the API answers it.
  expect(await media(['probe', 'dir_nothere/clip.mp4'])).toMatchObject({ code: 4 });
}, 60_000);

test('a refused run and its corrected rerun upload the input once; the refusals name the flags', async () => {
  const extraInput = await media(['run', '-i', 'clip.mp4', '-o', 'out.mp4', '--', '-i', 'other.mp4']);
  expect(extraInput.code).toBe(5);
  expect(extraInput.stderr).toMatch(/^uploaded clip\.mp4: /);
  expect(extraInput.stderr).toContain(
    "media: 400: Option '-i' is not allowed among the output options (after --): give each input as its own -i before --",
  );
  const [first] = await dirsHolding('clip.mp4');
  expect(await dirsHolding('clip.mp4')).toEqual([first]);

  const inputOption = await media(['run', '-i', 'clip.mp4', '-o', 'out.mp4', '--', '-re']);
  expect(inputOption.code).toBe(5);
  expect(inputOption.stderr).toContain(`reused clip.mp4: ${first}/clip.mp4 (uploaded before, same bytes`);
  expect(inputOption.stderr).toContain('(input options go in a task file, as inputs[i].options: media run task.json)');

  const corrected = await media(['run', '-i', 'clip.mp4', '-o', 'out.mp4', '--', '-c:v', 'libx264', '-preset', 'ultrafast']);
  expect(corrected.code).toBe(0);
  expect(corrected.stderr).toContain(`reused clip.mp4: ${first}/clip.mp4`);
  expect(corrected.stderr).not.toContain('uploaded clip.mp4');
  expect(await dirsHolding('clip.mp4')).toEqual([first]);

  // The cache knows the key only by a hash.
  const cache = await readFile(join(cacheHome, 'media-cli', 'uploads.json'), 'utf8');
  expect(cache).toContain(`${first}/clip.mp4`);
  expect(cache).not.toContain(key);

  // --no-reuse (or MEDIA_NO_REUSE=1) uploads again.
  const again = await media(['--quiet', 'probe', 'clip.mp4', '--no-reuse', '--probe', '{"format":["format_name"]}']);
  expect(again.code).toBe(0);
  expect(await dirsHolding('clip.mp4')).toHaveLength(2);
}, 120_000);

test('an upload the service no longer has is not reused: the CLI asks before reusing', async () => {
  const { stdout } = await media(['upload', 'clip.mp4']);
  const [dirId, name] = stdout.trim().split('/');
  await api.deleteFile(dirId!, name!);
  const probed = await media(['probe', 'clip.mp4', '--probe', '{"streams":["codec_name"]}']);
  expect(probed.code).toBe(0);
  expect(probed.stderr).toMatch(/^uploaded clip\.mp4: /);
  expect(probed.stderr).not.toContain('reused');
  // And the new upload is the one reused next.
  const next = await media(['probe', 'clip.mp4']);
  expect(next.stderr).toMatch(/^reused clip\.mp4: dir_\w+\/clip\.mp4/);
  expect(next.stderr).not.toContain(dirId);
}, 60_000);

test('an upload a run stored its output over is not reused, whatever its size', async () => {
  // copy.mp4: clip.mp4 with one byte of its media data changed (other bytes, the same size). A
  // remux of clip.mp4 stored as copy.mp4 in the same directory (outputs go next to the inputs)
  // replaces the upload with a file of that same size.
  const bytes = await readFile(join(dir, 'clip.mp4'));
  bytes[Math.floor(bytes.length / 2)] ^= 0xff;
  await writeFile(join(dir, 'copy.mp4'), bytes);
  const uploaded = await media(['upload', 'clip.mp4', 'copy.mp4']);
  expect(uploaded.code).toBe(0);
  const remux = await media(['run', '-i', 'clip.mp4', '-o', 'copy.mp4', '--', '-c', 'copy']);
  expect(remux.code).toBe(0);
  expect(remux.stderr).toContain('reused clip.mp4');
  const dirId = /reused clip\.mp4: (dir_\w+)\//.exec(remux.stderr)![1]!;
  expect((await api.fileInfo(dirId, 'copy.mp4')).file_info.file_size).toBe(bytes.length);
  const probed = await media(['probe', 'copy.mp4', '--probe', '{"format":["format_name"]}']);
  expect(probed.code).toBe(0);
  expect(probed.stderr).toMatch(/^uploaded copy\.mp4: /);
  expect(probed.stderr).not.toContain('reused');
}, 60_000);

test("a task file, and --json, keep the API's own sentence", async () => {
  const [dirId] = await dirsHolding('clip.mp4');
  await writeFile(
    join(dir, 'task.json'),
    JSON.stringify({ task: { inputs: [{ file_path: `${dirId}/clip.mp4` }], outputs: [{ file: 'o.mp4', options: ['-i', 'x.mp4'] }] } }),
  );
  const fromFile = await media(['run', 'task.json']);
  expect(fromFile).toMatchObject({ code: 5, stderr: expect.stringContaining('add the file to task.inputs') });
  const json = await media(['--json', 'run', '-i', `${dirId}/clip.mp4`, '-o', 'o.mp4', '--', '-i', 'x.mp4']);
  expect(json.code).toBe(5);
  expect(JSON.parse(json.stderr).error).toContain('add the file to task.inputs');
}, 60_000);
