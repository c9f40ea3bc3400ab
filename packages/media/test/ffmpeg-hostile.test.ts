// Uploads that are really playlists or reference files must be refused by the probe, and even
// when handed straight to the runner (probe skipped) must yield nothing of the files they name.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { DomainError } from '@media/platform';
import { listOutputs } from '../src/ffmpeg/outputs.js';
import { probeInput, runFfmpeg, runFfprobe } from '../src/ffmpeg/index.js';
import { ffconcatList, hlsInAvi, hlsPlaylist, leaks, makeSecret, makeTs, makeWorkDir, SDP_FILE } from './ffmpeg-fixtures.js';

let work: { path: string; remove: () => Promise<void> };
let secret: { path: string; markers: string[] };

beforeAll(async () => {
  work = await makeWorkDir();
  secret = await makeSecret(work.path); // outside in/ and out/, like any other file on the host
});
afterAll(() => work.remove());

/** Every hostile upload, by name (.mp4 where a user would disguise it). Built once `secret` exists. */
function hostileFiles(): Record<string, string | Buffer> {
  return {
    'hls-passwd.mp4': hlsPlaylist('/etc/passwd'),
    'hls-file-url.mp4': hlsPlaylist('file:///etc/passwd'),
    'hls-secret.mp4': hlsPlaylist(secret.path),
    'hls-secret-url.m3u8': hlsPlaylist(`file://${secret.path}`),
    'hls-relative.mp4': hlsPlaylist('../secret.ts'),
    'concat-passwd.mp4': ffconcatList('/etc/passwd'),
    'concat-secret.mp4': ffconcatList(secret.path),
    'session.mp4': SDP_FILE,
    'hls-in-avi.avi': hlsInAvi(hlsPlaylist(secret.path)),
    'hls-in-avi-passwd.mp4': hlsInAvi(hlsPlaylist('file:///etc/passwd')),
    'passwd-copy.mp4': '', // staged from /etc/passwd itself
  };
}

const HOSTILE_NAMES = [
  'hls-passwd.mp4',
  'hls-file-url.mp4',
  'hls-secret.mp4',
  'hls-secret-url.m3u8',
  'hls-relative.mp4',
  'concat-passwd.mp4',
  'concat-secret.mp4',
  'session.mp4',
  'hls-in-avi.avi',
  'hls-in-avi-passwd.mp4',
  'passwd-copy.mp4',
];

async function stage(name: string, content: string | Buffer): Promise<string> {
  const path = join('in', name);
  const data = name === 'passwd-copy.mp4' ? await readFile('/etc/passwd') : content;
  await writeFile(join(work.path, path), data);
  return path;
}

describe('probeInput refuses hostile uploads', () => {
  it.each(HOSTILE_NAMES)('%s', async (name) => {
    const path = await stage(name, hostileFiles()[name]!);
    const err = await probeInput(path, { workDir: work.path }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    const { status, message } = err as DomainError;
    // A refused format is the request's fault (400); data that is no media at all (a copy of
    // /etc/passwd) is an ffprobe failure (500, as the spec's error table says). Neither leaks.
    if (name === 'passwd-copy.mp4') {
      expect(status).toBe(500);
      expect(message).toMatch(/^FFprobe command failed with exit code \d+: Input file 'passwd-copy\.mp4' could not be read as media /);
    } else {
      expect(status).toBe(400);
      expect(message).toMatch(new RegExp(`^Input file '${name.replace(/\./g, '\\.')}' is not a supported media file: `));
    }
    expect(leaks(secret.markers, message)).toEqual([]);
  });

  it('names what it found', async () => {
    const reasons: Record<string, RegExp> = {
      'hls-passwd.mp4': /an HLS playlist$/,
      'concat-passwd.mp4': /a concat list$/,
      'session.mp4': /an SDP session description$/,
      'hls-in-avi.avi': /a subtitle stream of unknown type$/,
      'passwd-copy.mp4': /could not be read as media \(.+\)$/,
    };
    for (const [name, reason] of Object.entries(reasons)) {
      const path = await stage(name, hostileFiles()[name]!);
      await expect(probeInput(path, { workDir: work.path })).rejects.toThrow(reason);
    }
  });
});

describe('the runner, given hostile uploads directly', () => {
  // What an attacker would want the probe to have said: the container they disguised.
  const forced: [string, string][] = [
    ['hls-passwd.mp4', 'mov'],
    ['hls-secret.mp4', 'mpegts'],
    ['concat-secret.mp4', 'mov'],
    ['session.mp4', 'mov'],
    ['hls-in-avi.avi', 'avi'],
    ['hls-in-avi-passwd.mp4', 'avi'],
  ];

  it.each(forced)('%s as %s yields nothing of the named files', async (name, demuxer) => {
    const path = await stage(name, hostileFiles()[name]!);
    const outputs = [
      { args: ['-map', '0', '-c', 'copy', '-f', 'matroska'], fileName: `${name}.copy.mkv` },
      { args: ['-map', '0', '-c:s', 'srt', '-f', 'srt'], fileName: `${name}.srt` },
    ];
    const outcome = await runFfmpeg({
      workDir: work.path,
      inputs: [{ path, demuxer, args: [] }],
      outputs: outputs.map((o) => ({ kind: 'file' as const, ...o })),
      timeoutMs: 20_000,
    }).then(
      (r) => ({ ok: true as const, r }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    const files = await listOutputs(join(work.path, 'out'));
    const contents = await Promise.all(files.filter((f) => f.fileName.startsWith(name)).map((f) => readFile(f.path)));
    const message = outcome.ok ? '' : (outcome.e as Error).message;
    expect(leaks(secret.markers, message, ...contents)).toEqual([]);
    if (!outcome.ok) expect(message).not.toContain(work.path);
  });

  it('refuses demuxers outside the allow-list before starting ffmpeg', async () => {
    for (const demuxer of ['hls', 'concat', 'sdp', 'tty', 'image2', 'lavfi']) {
      await expect(
        runFfmpeg({
          workDir: work.path,
          inputs: [{ path: 'in/hls-passwd.mp4', demuxer, args: [] }],
          outputs: [{ args: [], fileName: 'never.mkv', kind: 'file' }],
          timeoutMs: 5000,
        }),
      ).rejects.toThrow(`the ${demuxer} format is not accepted`);
    }
  });

  it('runFfprobe with a forced demuxer reads nothing else either', async () => {
    const path = await stage('hls-secret.mp4', hlsPlaylist(secret.path));
    const err = await runFfprobe({
      workDir: work.path,
      input: { path, demuxer: 'mpegts' },
      args: ['-show_packets', '-show_data'],
      timeoutMs: 10_000,
    }).then(
      (r) => JSON.stringify(r.json),
      (e: unknown) => (e as Error).message,
    );
    expect(leaks(secret.markers, err)).toEqual([]);
  });
});

describe('control: the attack is real without the sandbox', () => {
  it('plain ffmpeg follows an HLS playlist named .mp4 to another file; ours does not', async () => {
    const other = await makeTs(join(work.path, 'other-job-output.ts'));
    const path = await stage('playlist.mp4', hlsPlaylist(other));
    // Unguarded: auto-detection picks HLS and copies the other file's video out.
    await mkdir(join(work.path, 'out'), { recursive: true });
    await execa('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', path, '-c', 'copy', 'out/stolen.mkv'], { cwd: work.path });
    const stolen = await probeInput('out/stolen.mkv', { workDir: work.path });
    expect(stolen.streams.map((s) => s.codec)).toEqual(['h264']);
    // Guarded: the probe refuses, and a forced container demuxer finds no media in it.
    await expect(probeInput(path, { workDir: work.path })).rejects.toThrow(/an HLS playlist$/);
    await expect(
      runFfmpeg({
        workDir: work.path,
        inputs: [{ path, demuxer: 'mov', args: [] }],
        outputs: [{ args: ['-c', 'copy'], fileName: 'guarded.mkv', kind: 'file' }],
        timeoutMs: 10_000,
      }),
    ).rejects.toThrow(/^FFmpeg command failed with exit code 1: .*moov atom not found; in\/playlist\.mp4: Invalid data found/);
    expect((await listOutputs(join(work.path, 'out'))).map((f) => f.fileName)).not.toContain('guarded.mkv');
  });
});
