// The task model's scoped allowances, run for real through POST /ffmpeg/process: image sequences,
// concat lists, side files (subtitles, fonts, text), HLS, analysis reports, output_dir_id. And the
// other side of each: what a user could try to turn them into (a file the service did not stage,
// an entry outside the directory, a run without end) is refused, uncharged.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Events, subscribeEvent } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

const run = promisify(execFile);
let stack: TestStack;
let api: ReturnType<typeof caller>;
let work: string;
let dirId: string;
const charged = new Set<string>();

async function upload(name: string, bytes: Buffer | string, dir?: string): Promise<string> {
  const { body } = await api('POST', '/file', dir ? { file_name: name, dir_id: dir } : { file_name: name });
  const put = await fetch(body.upload.url, {
    method: 'PUT',
    headers: body.upload.headers,
    body: typeof bytes === 'string' ? Buffer.from(bytes) : bytes,
  });
  expect(put.status).toBe(200);
  return body.file.dir_id;
}

const process = (task: unknown) => api('POST', '/ffmpeg/process', { task });
const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());

async function probe(
  bytes: Buffer,
  name: string,
): Promise<{
  format: { format_name: string; duration?: string };
  streams: Array<{ codec_type: string; codec_name: string; width?: number; height?: number; nb_read_frames?: string }>;
}> {
  const path = join(work, `probe-${name}`);
  await writeFile(path, bytes);
  const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-print_format', 'json', '-show_format', '-show_streams', path]);
  return JSON.parse(stdout);
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'task-model-'));
  stack = await startTestStack();
  api = caller(stack, (await stack.newAccount()).authorization);
  await subscribeEvent(stack.bus, Events.usageCharged, async (e) => void charged.add(e.requestId));
  dirId = await upload('clip.mp4', await makeMp4(work, 'clip.mp4', 2));
  await upload('clip2.mp4', await makeMp4(work, 'clip2.mp4', 1), dirId);
  for (let i = 1; i <= 4; i++) {
    await run('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `color=c=0x${(i * 40).toString(16).padStart(2, '0')}4080:s=64x48:d=0.04`,
      '-frames:v',
      '1',
      join(work, `img_00${i}.png`),
    ]);
    await upload(`img_00${i}.png`, await readFile(join(work, `img_00${i}.png`)), dirId);
  }
  // Not part of the sequence: another pattern, and a gap after 4.
  await upload('img_006.png', await readFile(join(work, 'img_001.png')), dirId);
  await upload('other_001.png', await readFile(join(work, 'img_001.png')), dirId);
  await upload('subs.srt', '1\n00:00:00,000 --> 00:00:01,500\nHello subtitles\n\n', dirId);
  await upload('font.ttf', await readFile('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'), dirId);
  await upload('caption.txt', 'From a text file', dirId);
  await upload('list.txt', "ffconcat version 1.0\n# two clips\nfile 'clip.mp4'\nfile clip2.mp4\n", dirId);
  await upload('evil-list.txt', "file '/etc/passwd'\n", dirId);
  await upload('evil-list2.txt', "file 'clip.mp4'\noption protocol_whitelist file,http\n", dirId);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await rm(work, { recursive: true, force: true });
});

describe('allowances that run', () => {
  test('an image sequence: exactly the files of the pattern, lowest number to the first gap', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/img_%03d.png`, options: ['-framerate', '4'] }],
      outputs: [{ file: 'seq.mp4', options: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'] }],
    });
    expect(res.status).toBe(200);
    const info = await probe(await download(res.body.result[0].download_url), 'seq.mp4');
    expect(info.streams[0]).toMatchObject({ codec_name: 'h264', width: 64, height: 48, nb_read_frames: '4' });
    // Four PNG inputs of about the same size were staged, not the fifth after the gap nor another pattern's.
    const one = (await readFile(join(work, 'img_001.png'))).length;
    expect(res.body.usage.input_size_gb).toBeGreaterThan((3.5 * one) / 1e9);
    expect(res.body.usage.input_size_gb).toBeLessThan((4.5 * one) / 1e9);
  });

  test('a sequence from -start_number: the files from that number up to the first gap', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/img_%03d.png`, options: ['-framerate', '4', '-start_number', '3'] }],
      outputs: [{ file: 'from3.mp4', options: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'] }],
    });
    expect(res.status).toBe(200);
    const info = await probe(await download(res.body.result[0].download_url), 'from3.mp4');
    expect(info.streams[0]).toMatchObject({ nb_read_frames: '2' });
    const one = (await readFile(join(work, 'img_001.png'))).length;
    expect(res.body.usage.input_size_gb).toBeLessThan((2.5 * one) / 1e9);
  });

  test('a concat list: its entries staged and the list rewritten', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/list.txt`, options: ['-f', 'concat'] }],
      outputs: [{ file: 'joined.mkv', options: ['-c', 'copy'] }],
    });
    expect(res.status).toBe(200);
    const info = await probe(await download(res.body.result[0].download_url), 'joined.mkv');
    expect(Number(info.format.duration)).toBeGreaterThan(2.8);
  });

  test('subtitles burnt in from an uploaded .srt, text drawn with an uploaded font and a text file', async () => {
    const res = await process({
      inputs: [
        { file_path: `${dirId}/clip.mp4` },
        { file_path: `${dirId}/subs.srt` },
        { file_path: `${dirId}/font.ttf` },
        { file_path: `${dirId}/caption.txt` },
      ],
      outputs: [
        {
          file: 'burnt.mp4',
          options: [
            '-vf',
            "subtitles=subs.srt,drawtext=fontfile=font.ttf:textfile=caption.txt:x=10:y=10:fontcolor=white,drawtext=text='Service font':y=40",
            '-c:a',
            'copy',
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect((await probe(await download(res.body.result[0].download_url), 'burnt.mp4')).streams.map((s) => s.codec_type).sort()).toEqual([
      'audio',
      'video',
    ]);
  });

  test('HLS: the playlist and its segments, each a result item', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/clip.mp4` }],
      outputs: [
        {
          file: 'stream.m3u8',
          options: ['-c:v', 'libx264', '-g', '25', '-c:a', 'aac', '-f', 'hls', '-hls_time', '1', '-hls_playlist_type', 'vod'],
        },
      ],
    });
    expect(res.status).toBe(200);
    const names: string[] = res.body.result.map((r: { file_name: string }) => r.file_name);
    expect(names).toContain('stream.m3u8');
    expect(names.filter((n) => /^stream\d+\.ts$/.test(n)).length).toBeGreaterThanOrEqual(2);
    const playlist = (
      await download(res.body.result.find((r: { file_name: string }) => r.file_name === 'stream.m3u8').download_url)
    ).toString();
    expect(playlist).toContain('stream0.ts');
    expect(playlist).not.toContain('out/');
  });

  test("an analysis run: -f null writes the filters' report, charged like any run", async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/clip.mp4` }],
      outputs: [{ file: 'loudness.json', options: ['-af', 'volumedetect,loudnorm=print_format=json', '-vn', '-f', 'null'] }],
    });
    expect(res.status).toBe(200);
    const report = JSON.parse((await download(res.body.result[0].download_url)).toString());
    expect(report.filters.map((f: { filter: string }) => f.filter)).toEqual(['volumedetect', 'loudnorm']);
    expect(report.filters[0].lines.join('\n')).toContain('mean_volume');
    expect(report.filters[1].json).toHaveProperty('input_i');
    expect(res.body.amount_usd).toBeGreaterThan(0);
  });

  test('numbered images with no -frames: bounded by the service, the result holds what was written', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/clip.mp4` }],
      outputs: [{ file: 'frame_%03d.jpg', options: ['-vf', 'fps=2'] }],
    });
    expect(res.status).toBe(200);
    expect(res.body.result.length).toBeGreaterThanOrEqual(4);
  });

  test('outputs go to output_dir_id', async () => {
    const { body } = await api('POST', '/directory', {});
    const res = await process({
      inputs: [{ file_path: `${dirId}/clip.mp4` }],
      outputs: [{ file: 'elsewhere.png', options: ['-frames:v', '1'] }],
      output_dir_id: body.directory.id,
    });
    expect(res.status).toBe(200);
    expect((await api('GET', `/file/${body.directory.id}/elsewhere.png`)).status).toBe(200);
    expect((await api('GET', `/file/${dirId}/elsewhere.png`)).status).toBe(404);
    const missing = await process({
      inputs: [{ file_path: `${dirId}/clip.mp4` }],
      outputs: [{ file: 'x.png', options: ['-frames:v', '1'] }],
      output_dir_id: 'dir_nope',
    });
    expect(missing).toMatchObject({ status: 404, body: { ok: false, error: 'Directory not found' } });
  });
});

describe('what they cannot be turned into', () => {
  test.each([
    [
      'a concat entry outside the directory',
      [{ file_path: '{dir}/evil-list.txt', options: ['-f', 'concat'] }],
      /Concat list 'evil-list.txt', line 1: 'file \/etc\/passwd' names a path/,
    ],
    [
      'a concat directive that sets options',
      [{ file_path: '{dir}/evil-list2.txt', options: ['-f', 'concat'] }],
      /line 2: 'option' is not allowed/,
    ],
    ['a font path', [{ file_path: '{dir}/clip.mp4' }], /names '\/etc\/passwd', which is not an input of the task/],
  ])('%s is refused with 400, uncharged', async (_t, inputs, message) => {
    const vf = _t === 'a font path' ? ['-vf', 'drawtext=fontfile=/etc/passwd:text=x'] : [];
    const res = await process({
      inputs: JSON.parse(JSON.stringify(inputs).replaceAll('{dir}', dirId)),
      outputs: [{ file: 'x.mp4', options: vf }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(res.headers['x-request-id']).toBeDefined();
  });

  test('-safe 0, as the wiki writes it, changes nothing: an entry outside the directory is still refused', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/evil-list.txt`, options: ['-f', 'concat', '-safe', '0'] }],
      outputs: [{ file: 'x.mp4' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/Concat list 'evil-list.txt', line 1: 'file \/etc\/passwd' names a path/);
  });

  test('a sequence started at a number no file has', async () => {
    const res = await process({
      inputs: [{ file_path: `${dirId}/img_%03d.png`, options: ['-start_number', '5'] }],
      outputs: [{ file: 'x.mp4' }],
    });
    expect(res).toMatchObject({
      status: 400,
      body: { error: expect.stringContaining('starts at number 5 (-start_number), but no uploaded file') },
    });
  });

  test('a sequence pattern matching nothing', async () => {
    const res = await process({ inputs: [{ file_path: `${dirId}/none_%03d.png` }], outputs: [{ file: 'x.mp4' }] });
    expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('matches no uploaded file') } });
  });

  test('an endless input with no bound', async () => {
    const res = await process({ inputs: [{ file_path: `${dirId}/img_001.png`, options: ['-loop', '1'] }], outputs: [{ file: 'x.mp4' }] });
    expect(res).toMatchObject({ status: 400, body: { error: expect.stringContaining('would never end') } });
  });

  test('a text file given as media: ffprobe cannot read it, 500 as the spec says for an ffprobe failure', async () => {
    const res = await process({ inputs: [{ file_path: `${dirId}/caption.txt` }], outputs: [{ file: 'x.mp4' }] });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/^FFprobe command failed with exit code \d+: Input file 'caption.txt' could not be read as media/);
  });
});
