// POST /ffprobe/analyze as a user sees it: real ffprobe on uploaded mp4, mp3 and png files, entry
// filtering, frames within read intervals, the limits, playlists that name /etc/passwd, the
// 50-jobs admission, and usage charged by the pricing rule (errors charged nothing).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JobKind, JobStatus, JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { createServiceClient, Events, subscribeEvent } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, until } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

const run = promisify(execFile);

let stack: TestStack;
let api: ReturnType<typeof caller>;
let accountId: string;
let fixtures: string;
let dirId: string;
const sizes: Record<string, number> = {};
const charges: { requestId: string; gbSec: number; amountUsd: number; kind: JobKind; inputSizeGb: number }[] = [];

async function ffmpegFixture(name: string, args: string[]): Promise<Buffer> {
  const path = join(fixtures, name);
  await run('ffmpeg', ['-v', 'error', ...args, path]);
  return readFile(path);
}

async function upload(name: string, bytes: Buffer): Promise<void> {
  const { body } = await api('POST', '/file', { file_name: name, dir_id: dirId });
  const put = await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: bytes });
  expect(put.status).toBe(200);
  sizes[name] = bytes.length;
}

// Successful probes so far: each is charged once, and the charge may still be on its way (NATS).
let probed = 0;
const analyze = async (body: unknown) => {
  const res = await api('POST', '/ffprobe/analyze', body);
  if (res.status === 200) probed++;
  return res;
};
/** Every charge of the probes so far has arrived, so none lands during a later "nothing charged" check. */
async function allCharged() {
  await until(() => charges.length >= probed);
  expect(charges.length).toBe(probed);
}
const activeJobs = async () => (await api('GET', '/account')).body.jobs.active as number;

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'probe-fixtures-'));
  stack = await startTestStack();
  const account = await stack.newAccount();
  accountId = account.accountId;
  api = caller(stack, account.authorization);
  await subscribeEvent(
    stack.bus,
    Events.usageCharged,
    async (e) =>
      void charges.push({
        requestId: e.requestId,
        gbSec: e.usage!.gbSec,
        amountUsd: e.amountUsd,
        kind: e.kind,
        inputSizeGb: e.usage!.inputSizeGb,
      }),
  );
  dirId = (await api('POST', '/directory', {})).body.directory.id;
  await upload('in.mp4', await makeMp4(fixtures, 'in.mp4', 2));
  await upload(
    'in.mp3',
    await ffmpegFixture('in.mp3', ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-c:a', 'libmp3lame', '-b:a', '64k']),
  );
  await upload('in.png', await ffmpegFixture('in.png', ['-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1']));
  // Raw H.264 cannot seek: ffprobe itself fails when an interval starts with a seek.
  await upload(
    'raw.h264',
    await ffmpegFixture('raw.h264', [
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=2:size=64x48:rate=25',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-f',
      'h264',
    ]),
  );
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await rm(fixtures, { recursive: true, force: true });
});

/** The spec's pricing rule, checked on the response and on the charge event. */
async function expectCharged(body: any, fileName: string) {
  expect(body.request_id).toMatch(/^job_[a-z0-9]{20}$/);
  expect(body.usage.input_size_gb).toBe(sizes[fileName]! / 1e9);
  expect(body.usage.output_size_gb).toBe(0);
  expect(body.usage.time_sec).toBeGreaterThan(0);
  expect(body.usage.gb_sec).toBe(Number((body.usage.input_size_gb * body.usage.time_sec).toFixed(9)));
  expect(body.amount_usd).toBe(Number((body.usage.gb_sec * 0.01332).toFixed(9)));
  await until(() => charges.some((c) => c.requestId === body.request_id));
  expect(charges.filter((c) => c.requestId === body.request_id)).toEqual([
    {
      requestId: body.request_id,
      gbSec: body.usage.gb_sec,
      amountUsd: body.amount_usd,
      kind: JobKind.PROBE,
      inputSizeGb: body.usage.input_size_gb,
    },
  ]);
}

describe('probes that work', () => {
  test('mp4, default sections: format and streams, every entry', async () => {
    const res = await analyze({ file_path: `${dirId}/in.mp4` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      result: { format: expect.any(Object), streams: expect.any(Array) },
      usage: { time_sec: expect.any(Number), input_size_gb: expect.any(Number), output_size_gb: 0, gb_sec: expect.any(Number) },
      request_id: expect.any(String),
      amount_usd: expect.any(Number),
    });
    const { format, streams } = res.body.result;
    expect(format).toMatchObject({
      filename: `${dirId}/in.mp4`,
      format_name: 'mov,mp4,m4a,3gp,3g2,mj2',
      nb_streams: 2,
      size: String(sizes['in.mp4']),
    });
    expect(Number(format.duration)).toBeCloseTo(2, 1);
    expect(streams.map((s: any) => [s.codec_type, s.codec_name])).toEqual([
      ['video', 'h264'],
      ['audio', 'aac'],
    ]);
    expect(streams[0]).toMatchObject({ width: 320, height: 240, disposition: expect.any(Object), tags: expect.any(Object) });
    await expectCharged(res.body, 'in.mp4');
  });

  test('mp3', async () => {
    const res = await analyze({ file_path: `${dirId}/in.mp3` });
    expect(res.status).toBe(200);
    expect(res.body.result.format.format_name).toBe('mp3');
    expect(res.body.result.streams).toEqual([expect.objectContaining({ codec_type: 'audio', codec_name: 'mp3', sample_rate: '44100' })]);
    await expectCharged(res.body, 'in.mp3');
  });

  test('png', async () => {
    const res = await analyze({ file_path: `${dirId}/in.png` });
    expect(res.status).toBe(200);
    expect(res.body.result.format.format_name).toBe('png_pipe');
    expect(res.body.result.streams).toEqual([expect.objectContaining({ codec_type: 'video', codec_name: 'png', width: 64, height: 48 })]);
    await expectCharged(res.body, 'in.png');
  });

  test('entry filtering returns only the asked entries and sections', async () => {
    const res = await analyze({
      file_path: `${dirId}/in.mp4`,
      probe: { format: ['duration', 'format_name', 'tag:encoder'], streams: ['index', 'codec_type'], chapters: [] },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result).sort()).toEqual(['chapters', 'format', 'streams']);
    expect(Object.keys(res.body.result.format).sort()).toEqual(['duration', 'format_name', 'tags']);
    expect(Object.keys(res.body.result.format.tags)).toEqual(['encoder']);
    expect(res.body.result.streams).toEqual([
      { index: 0, codec_type: 'video' },
      { index: 1, codec_type: 'audio' },
    ]);
    expect(res.body.result.chapters).toEqual([]);
    await expectCharged(res.body, 'in.mp4');
  });

  test('select_streams, analyzeduration and probesize', async () => {
    const res = await analyze({
      file_path: `${dirId}/in.mp4`,
      probe: { streams: ['codec_name'], select_streams: 'a:0', analyzeduration: 5, probesize: 5_000_000 },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ streams: [{ codec_name: 'aac' }] });
  });

  test('frames within a read interval (frame count and time span)', async () => {
    const byCount = await analyze({
      file_path: `${dirId}/in.mp4`,
      probe: { frames: ['media_type', 'pts_time', 'pict_type'], select_streams: 'v', read_intervals: '%+#5' },
    });
    expect(byCount.status).toBe(200);
    const frames = byCount.body.result.frames as any[];
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.length).toBeLessThanOrEqual(5);
    for (const f of frames) {
      expect(f.media_type).toBe('video');
      // Only what was asked: ffprobe itself adds an empty side_data_list ([{}]) to each frame.
      expect(Object.keys(f).every((k) => ['media_type', 'pts_time', 'pict_type'].includes(k))).toBe(true);
    }
    await expectCharged(byCount.body, 'in.mp4');

    const byTime = await analyze({
      file_path: `${dirId}/in.mp4`,
      probe: { frames: ['pts_time'], select_streams: 'v', read_intervals: ['0%+0.4'] },
    });
    expect(byTime.status).toBe(200);
    const times = (byTime.body.result.frames as any[]).map((f) => Number(f.pts_time));
    expect(times.length).toBeGreaterThan(0);
    expect(Math.max(...times)).toBeLessThan(0.5); // 25 fps: the frames of the first 0.4 s
  });

  test('frames and packets together come back as two sections; counting within the interval', async () => {
    const res = await analyze({
      file_path: `${dirId}/in.mp4`,
      probe: {
        streams: ['index'],
        frames: ['pts_time'],
        packets: ['pts_time', 'size'],
        select_streams: 'v',
        read_intervals: '%+#10',
        count_frames: true,
        count_packets: true,
      },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result).sort()).toEqual(['frames', 'packets', 'streams']);
    expect(res.body.result.packets).toHaveLength(10);
    expect(res.body.result.packets.every((p: any) => 'size' in p && !('type' in p))).toBe(true);
    expect(res.body.result.frames.length).toBeGreaterThan(0);
    // The whole file has 50 video frames: counting stopped at the interval's end.
    expect(res.body.result.streams).toEqual([{ index: 0, nb_read_frames: expect.any(String), nb_read_packets: '10' }]);
    expect(Number(res.body.result.streams[0].nb_read_frames)).toBeLessThanOrEqual(10);
  });

  test('the error section is null when ffprobe reports no error', async () => {
    const res = await analyze({ file_path: `${dirId}/in.mp3`, probe: { format: ['format_name'], error: [] } });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ format: { format_name: 'mp3' }, error: null });
  });
});

describe('errors (nothing charged, no admission left behind)', () => {
  let chargedBefore: number;
  beforeEach(async () => {
    await allCharged();
    chargedBefore = charges.length;
  });
  afterEach(async () => {
    expect(charges.length).toBe(chargedBefore);
    expect(await activeJobs()).toBe(0);
  });

  test('missing directory and file -> 404', async () => {
    expect(await analyze({ file_path: 'dir_nope0000000000000000/in.mp4' })).toMatchObject({
      status: 404,
      body: { ok: false, error: 'Directory not found' },
    });
    expect(await analyze({ file_path: `${dirId}/missing.mp4` })).toMatchObject({
      status: 404,
      body: { ok: false, error: 'File not found in directory' },
    });
  });

  test('an upload that is really an m3u8 or ffconcat list naming /etc/passwd reveals nothing', async () => {
    const lists = {
      'evil.mp4': '#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\n/etc/passwd\n#EXT-X-ENDLIST\n',
      'evil.m3u8': '#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n',
      'evil2.mp4': 'ffconcat version 1.0\nfile /etc/passwd\n',
    };
    for (const [name, text] of Object.entries(lists)) {
      await upload(name, Buffer.from(text));
      for (const probe of [undefined, { format: [], streams: [], packets: [], frames: [], read_intervals: '%+#100' }]) {
        const res = await analyze({ file_path: `${dirId}/${name}`, ...(probe ? { probe } : {}) });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(
          new RegExp(`^Input file '${name.replace('.', '\\.')}' is not a supported media file: it is (an HLS playlist|a concat list)$`),
        );
        expect(JSON.stringify(res.body)).not.toMatch(/root:|\/bin\/(ba)?sh|passwd/);
      }
    }
  });

  test('ffprobe failure -> 500 with exit code; not charged; the admission is released', async () => {
    const res = await analyze({ file_path: `${dirId}/raw.h264`, probe: { packets: [], read_intervals: '1%+1' } });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/^FFprobe command failed with exit code 1: .+/);
    expect(res.body.error).not.toContain(stack.dataDir);
  });
});

test('probes count toward the 50 jobs in progress: 429 with Retry-After when full', async () => {
  const jobs = createServiceClient(JobsService, stack.urls.jobs, { breaker: false, interceptors: stack.callAs('probe') });
  try {
    const held: string[] = [];
    for (let i = 0; i < 50; i++) held.push((await jobs.client.admitJob({ accountId, keyId: 'key_test', kind: JobKind.PROBE })).jobId);
    await allCharged();
    const before = charges.length;
    const res = await analyze({ file_path: `${dirId}/in.mp4` });
    expect(res).toMatchObject({
      status: 429,
      body: { ok: false, error: 'Too many jobs in progress: at most 50 per account. Retry when one finishes.' },
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(charges.length).toBe(before);
    for (const jobId of held) await jobs.client.finishJob({ accountId, jobId, status: JobStatus.UNSPECIFIED });
    expect((await analyze({ file_path: `${dirId}/in.mp4` })).status).toBe(200);
    expect(await activeJobs()).toBe(0);
  } finally {
    jobs.close();
  }
});
