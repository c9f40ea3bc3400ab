// The per-blob verdict cache: a verdict is taken once, recorded with Storage, trusted only when it
// is of this version and names an allowed demuxer, and a forged or stale one is probed again.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MEDIA_PROBE_VERSION, parseMediaProbe, probeStaged, type ResolvedInput, type StagingDeps } from '../src/staging/index.js';
import { hlsPlaylist, makeMp4, makeWorkDir } from './ffmpeg-fixtures.js';

let work: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  work = await makeWorkDir();
  await makeMp4(join(work.path, 'in', '0'));
  await writeFile(join(work.path, 'in', '1'), hlsPlaylist('/etc/passwd'));
});
afterAll(() => work.remove());

const logger = { warn: () => undefined };

function fakeStorage() {
  const recorded: { blobKey: string; mediaProbe: string }[] = [];
  const deps = {
    storage: { recordMediaProbe: async (req: { blobKey: string; mediaProbe: string }) => (recorded.push(req), { recorded: true }) },
  } as unknown as StagingDeps;
  return { deps, recorded };
}

const uploaded = (mediaProbe?: string): ResolvedInput => ({
  input: { kind: 'uploaded', dirId: 'dir_x', fileName: 'clip.mp4' },
  name: 'clip.mp4',
  blobKey: 'acc/dir_x/f_1',
  mediaProbe,
});

test('parseMediaProbe trusts only a verdict of this version naming an allowed demuxer', () => {
  const good = { v: MEDIA_PROBE_VERSION, format: 'mov', formatName: 'mov,mp4', streams: [{ index: 0, type: 'video' }] };
  expect(parseMediaProbe(JSON.stringify(good))).toEqual({ format: 'mov', formatName: 'mov,mp4', streams: [{ index: 0, type: 'video' }] });
  expect(parseMediaProbe(JSON.stringify({ ...good, v: MEDIA_PROBE_VERSION - 1 }))).toBeUndefined();
  expect(parseMediaProbe(JSON.stringify({ ...good, format: 'hls' }))).toBeUndefined();
  expect(parseMediaProbe(JSON.stringify({ ...good, format: 'concat' }))).toBeUndefined();
  expect(parseMediaProbe(JSON.stringify({ ...good, streams: 'x' }))).toBeUndefined();
  expect(parseMediaProbe('{not json')).toBeUndefined();
  expect(parseMediaProbe(undefined)).toBeUndefined();
});

test('the first use probes and records the verdict; a later use with it runs no ffprobe', async () => {
  const { deps, recorded } = fakeStorage();
  const probed = await probeStaged(deps, 'acc', 0, uploaded(), { workDir: work.path, logger });
  expect(probed.format).toBe('mov');
  await new Promise((r) => setImmediate(r));
  expect(recorded).toHaveLength(1);
  expect(recorded[0]!.blobKey).toBe('acc/dir_x/f_1');
  // Input 7 was never staged: had ffprobe run, it would have failed on the missing file.
  const again = await probeStaged(deps, 'acc', 7, uploaded(recorded[0]!.mediaProbe), { workDir: work.path, logger });
  expect(again).toEqual(probed);
  expect(recorded).toHaveLength(1);
});

test('a forged verdict for a playlist is ignored: the playlist is probed, refused, and nothing recorded', async () => {
  const { deps, recorded } = fakeStorage();
  const forged = JSON.stringify({ v: MEDIA_PROBE_VERSION, format: 'hls', formatName: 'hls', streams: [] });
  await expect(probeStaged(deps, 'acc', 1, uploaded(forged), { workDir: work.path, logger })).rejects.toThrow(
    /not a supported media file: it is an HLS playlist/,
  );
  expect(recorded).toHaveLength(0);
});

test('URL inputs are probed every time and never recorded', async () => {
  const { deps, recorded } = fakeStorage();
  const url: ResolvedInput = { input: { kind: 'url', url: 'https://example.com/clip.mp4' }, name: 'clip.mp4' };
  expect((await probeStaged(deps, 'acc', 0, url, { workDir: work.path, logger })).format).toBe('mov');
  expect(recorded).toHaveLength(0);
});
