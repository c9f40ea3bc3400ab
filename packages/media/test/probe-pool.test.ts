// Probes are bounded like jobs: ffprobe runs of this process (admission probes and
// /ffprobe/analyze together) take turns in a pool of PROBE_CONCURRENCY, each under an
// address-space cap. Six probes of a decompression bomb (a 420 KB PNG that decodes to
// 12000x12000, about 474 MB each) never run more than the pool at once, so probes take at most
// PROBE_CONCURRENCY x PROBE_ADDRESS_SPACE_BYTES; under a cap it exceeds, the frame is not decoded.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createForkServers, PROBE_CONCURRENCY, runFfprobe } from '../src/ffmpeg/index.js';
import { makeWorkDir } from './ffmpeg-fixtures.js';

const run = promisify(execFile);
let work: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  work = await makeWorkDir();
  await run('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'color=c=black:s=12000x12000',
    '-frames:v',
    '1',
    '-f',
    'image2',
    '-c:v',
    'png',
    join(work.path, 'in', 'bomb'),
  ]);
}, 60_000);
// As the services run ffprobe: forked from a server that has its libraries loaded already (a run
// exec'd under the 256 MB cap below could not even map them).
const forkServers = createForkServers({ enabled: true });
afterAll(async () => {
  await forkServers.close();
  await work.remove();
});

const probeBomb = (extra: Partial<Parameters<typeof runFfprobe>[0]> = {}) =>
  runFfprobe({
    workDir: work.path,
    input: { path: 'in/bomb', demuxer: 'png_pipe' },
    args: ['-show_entries', 'stream=width,height'],
    timeoutMs: 60_000,
    forkServers,
    ...extra,
  });

test('six bomb probes at once: never more than the pool running, each answered', async () => {
  let running = 0;
  let most = 0;
  const results = await Promise.all(
    Array.from({ length: 6 }, () =>
      probeBomb({
        onSpawn: () => {
          most = Math.max(most, ++running);
        },
      }).finally(() => void running--),
    ),
  );
  expect(most).toBeLessThanOrEqual(PROBE_CONCURRENCY);
  expect(most).toBeGreaterThan(0);
  for (const r of results) expect(r.json).toMatchObject({ streams: [{ width: 12000, height: 12000 }] });
}, 120_000);

test('a bomb past the address-space cap is not decoded: the probe ends, without the picture, and the host keeps its memory', async () => {
  // ffprobe gives up the frame it cannot allocate and reports what it read without it.
  const capped = await probeBomb({ limits: { addressSpaceBytes: 256 * 1024 ** 2 } });
  expect(capped.json).toMatchObject({ streams: [{ width: 0, height: 0 }] });
});
