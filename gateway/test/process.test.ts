// POST /ffmpeg/process as a user sees it: real ffmpeg, outputs downloadable, usage arithmetic,
// charges only for successes, and every error row of the endpoint.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Events, subscribeEvent } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, until } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

let stack: TestStack;
let api: ReturnType<typeof caller>;
let fixtures: string;
let mp4: Buffer;
let dirId: string;
const charges: { requestId: string; gbSec: number; amountUsd: number }[] = [];

async function upload(name: string, bytes: Buffer, dir?: string): Promise<string> {
  const { body } = await api('POST', '/file', dir ? { file_name: name, dir_id: dir } : { file_name: name });
  const put = await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: bytes });
  expect(put.status).toBe(200);
  return body.file.dir_id;
}

const process = (task: unknown) => api('POST', '/ffmpeg/process', { task });
const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'process-fixtures-'));
  mp4 = await makeMp4(fixtures, 'in.mp4');
  stack = await startTestStack();
  api = caller(stack, (await stack.newAccount()).authorization);
  await subscribeEvent(
    stack.bus,
    Events.usageCharged,
    async (e) => void charges.push({ requestId: e.requestId, gbSec: e.usage!.gbSec, amountUsd: e.amountUsd }),
  );
  dirId = await upload('in.mp4', mp4);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await rm(fixtures, { recursive: true, force: true });
});

async function expectUsage(body: any, inputBytes: number) {
  const outBytes = body.result.reduce((a: number, r: any) => a + r.size_bytes, 0);
  expect(body.usage.input_size_gb).toBe(inputBytes / 1e9);
  expect(body.usage.output_size_gb).toBe(outBytes / 1e9);
  expect(body.usage.time_sec).toBeGreaterThan(0);
  expect(body.usage.gb_sec).toBe(Number(((body.usage.input_size_gb + body.usage.output_size_gb) * body.usage.time_sec).toFixed(9)));
  expect(body.amount_usd).toBe(Number((body.usage.gb_sec * 0.01332).toFixed(9)));
  await until(() => charges.some((c) => c.requestId === body.request_id));
  expect(charges).toContainEqual({ requestId: body.request_id, gbSec: body.usage.gb_sec, amountUsd: body.amount_usd });
}

describe('tasks that work', () => {
  test('mp4 -> webm', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/in.mp4` }],
      outputs: [
        { file: 'out.webm', options: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '300k', '-c:a', 'libopus'] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      result: [{ file_name: 'out.webm', size_bytes: expect.any(Number), download_url: expect.any(String) }],
      usage: {
        time_sec: expect.any(Number),
        input_size_gb: expect.any(Number),
        output_size_gb: expect.any(Number),
        gb_sec: expect.any(Number),
      },
      request_id: expect.stringMatching(/^job_[a-z0-9]+$/),
      amount_usd: expect.any(Number),
    });
    const bytes = await download(res.body.result[0].download_url);
    expect(bytes.length).toBe(res.body.result[0].size_bytes);
    expect(bytes.subarray(0, 4).toString('hex')).toBe('1a45dfa3'); // EBML (WebM)
    await expectUsage(res.body, mp4.length);
    // The output is a file of the input's directory now.
    const info = await api('GET', `/file/${dirId}/out.webm`);
    expect(info.body.file_info).toMatchObject({ file_size: bytes.length, file_type: 'video/webm' });
  });

  test('png thumbnail', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/in.mp4` }],
      outputs: [{ file: 'thumb.png', options: ['-ss', '1', '-frames:v', '1', '-vf', 'scale=160:-2'] }],
    });
    expect(res.status).toBe(200);
    const bytes = await download(res.body.result[0].download_url);
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    await expectUsage(res.body, mp4.length);
  });

  test('numbered frames thumb_%03d.png', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/in.mp4` }],
      outputs: [{ file: 'thumb_%03d.png', options: ['-vf', 'fps=2,scale=80:-2', '-frames:v', '4'] }],
    });
    expect(res.status).toBe(200);
    expect(res.body.result.map((r: any) => r.file_name)).toEqual(['thumb_001.png', 'thumb_002.png', 'thumb_003.png', 'thumb_004.png']);
    for (const r of res.body.result) expect((await download(r.download_url)).subarray(1, 4).toString()).toBe('PNG');
    await expectUsage(res.body, mp4.length);
  });

  test('extract audio to mp3', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/in.mp4` }],
      outputs: [{ file: 'audio.mp3', options: ['-vn', '-c:a', 'libmp3lame', '-b:a', '128k'] }],
    });
    expect(res.status).toBe(200);
    const bytes = await download(res.body.result[0].download_url);
    expect(bytes.subarray(0, 3).toString() === 'ID3' || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0)).toBe(true);
    await expectUsage(res.body, mp4.length);
  });
});

describe('errors (nothing charged)', () => {
  const chargedBefore = () => charges.length;

  test.each([
    // No body or no task object: body-rules.test.ts (the fast level; Jobs is never asked).
    [{ task: { inputs: [], outputs: [{ file: 'a.mp4', options: [] }] } }, 'Invalid task format: inputs must be a non-empty array'],
    [{ task: { outputs: [{ file: 'a.mp4', options: [] }] } }, 'Invalid task format: inputs must be a non-empty array'],
    [
      { task: { inputs: [{ file_path: 'no-slash' }], outputs: [{ file: 'a.mp4', options: [] }] } },
      "Invalid file_path format. Expected <dir_id>/<file_name>; to generate an input, give -f lavfi in the input's options and a source graph such as color=black:s=1280x720:d=5 as its file_path",
    ],
    [
      { task: { inputs: [{ file_path: 'dir_a/x.mp4' }, { file_path: 'dir_b/y.mp4' }], outputs: [{ file: 'a.mp4', options: [] }] } },
      'All input files must be from the same directory',
    ],
    [
      { task: { inputs: [{ file_path: 'dir_a/x.mp4' }], outputs: [{ file: 'x.mp4', options: [] }] } },
      "Output filename 'x.mp4' conflicts with an existing input file",
    ],
  ])('%j -> 400 %s', async (body, error) => {
    const before = chargedBefore();
    const res = await api('POST', '/ffmpeg/process', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error });
    expect(charges.length).toBe(before);
  });

  test('refused option and filter: 400 naming the token', async () => {
    for (const [options, token] of [
      [['-attach', 'x.ttf'], '-attach'],
      [['-vf', 'movie=/etc/passwd'], 'movie'],
    ] as const) {
      const res = await process({ inputs: [{ file_path: `${dirId}/in.mp4` }], outputs: [{ file: 'o.mp4', options }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(token);
    }
  });

  test('http:// URL input -> 400', async () => {
    const res = await process({ inputs: [{ file_path: 'http://example.com/a.mp4' }], outputs: [{ file: 'o.mp4', options: [] }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/HTTPS/);
  });

  test('missing directory and file -> 404', async () => {
    expect(
      await process({ inputs: [{ file_path: 'dir_nope0000000000000000/in.mp4' }], outputs: [{ file: 'o.mp4', options: [] }] }),
    ).toMatchObject({
      status: 404,
      body: { ok: false, error: 'Directory not found' },
    });
    expect(await process({ inputs: [{ file_path: `${dirId}/missing.mp4` }], outputs: [{ file: 'o.mp4', options: [] }] })).toMatchObject({
      status: 404,
      body: { ok: false, error: 'File not found in directory' },
    });
  });

  test('ffmpeg failure -> 500 with exit code, not charged, listed nowhere as charged', async () => {
    const before = chargedBefore();
    const res = await process({ inputs: [{ file_path: `${dirId}/in.mp4` }], outputs: [{ file: 'subs.mp4', options: ['-map', '0:s'] }] });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/^FFmpeg command failed with exit code \d+: .+/);
    expect(res.body.error).not.toContain(stack.dataDir);
    expect(charges.length).toBe(before);
  });

  test('a thumbnail past the end of the input: ffmpeg writes nothing -> 500 saying so, not charged', async () => {
    const before = chargedBefore();
    const res = await process({
      inputs: [{ file_path: `${dirId}/in.mp4` }],
      outputs: [{ file: 'late.png', options: ['-ss', '100', '-frames:v', '1'] }],
    });
    expect(res.status).toBe(500);
    expect(res.body.error).toBe(
      "FFmpeg command failed with exit code 0: no output was written for 'late.png': no frame reached it (is -ss past the end of the input, or does a filter drop every frame?)",
    );
    expect(charges.length).toBe(before);
  });

  test('an upload that is really an m3u8 or ffconcat list naming /etc/passwd reveals nothing', async () => {
    const playlists = {
      'evil.mp4': '#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\n/etc/passwd\n#EXT-X-ENDLIST\n',
      'evil2.mp4': 'ffconcat version 1.0\nfile /etc/passwd\n',
    };
    for (const [name, text] of Object.entries(playlists)) {
      await upload(name, Buffer.from(text), dirId);
      const res = await process({
        inputs: [{ file_path: `${dirId}/${name}` }],
        outputs: [{ file: `${name}.txt`, options: ['-f', 'mp4'] }],
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(res.body)).not.toMatch(/root:|\/bin\/(ba)?sh/);
    }
  });
});
