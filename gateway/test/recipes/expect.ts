// What a recipe's outputs must be, checked with ffprobe as a user would check them: the files
// (names, or a numbered pattern's count), container, streams in order (type, codec, size),
// duration, frame counts, and for text outputs (playlists, analysis reports) what they hold.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { OutputExpect, Recipe, StreamExpect } from './recipes.js';

const run = promisify(execFile);

interface Probed {
  format: { format_name: string; duration?: string };
  streams: Array<{ codec_type: string; codec_name: string; width?: number; height?: number; nb_read_frames?: string }>;
}

async function ffprobe(path: string, countFrames: boolean): Promise<Probed> {
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', ...(countFrames ? ['-count_frames'] : []), path];
  return JSON.parse((await run('ffprobe', args, { maxBuffer: 16 * 1024 * 1024 })).stdout) as Probed;
}

/** `frame_%03d.jpg` as a regular expression matching the names it gives. */
export function patternRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/%0?(\d*)d/, (_m, width: string) => (width ? `\\d{${width},}` : '\\d+'));
  return new RegExp(`^${escaped}$`);
}

function streamProblems(name: string, got: Probed['streams'], want: StreamExpect[]): string[] {
  const types = got.map((s) => s.codec_type);
  if (types.length !== want.length || want.some((w, i) => w.type !== types[i])) {
    return [`${name}: streams are [${types.join(', ')}], expected [${want.map((w) => w.type).join(', ')}]`];
  }
  const problems: string[] = [];
  want.forEach((w, i) => {
    const s = got[i]!;
    if (w.codec && s.codec_name !== w.codec) problems.push(`${name}: stream ${i} is ${s.codec_name}, expected ${w.codec}`);
    if (w.width !== undefined && s.width !== w.width) problems.push(`${name}: stream ${i} is ${s.width} wide, expected ${w.width}`);
    if (w.height !== undefined && s.height !== w.height) problems.push(`${name}: stream ${i} is ${s.height} high, expected ${w.height}`);
    if (w.frames !== undefined) {
      const [lo, hi] = typeof w.frames === 'number' ? [w.frames, w.frames] : w.frames;
      const n = Number(s.nb_read_frames);
      if (!(n >= lo && n <= hi))
        problems.push(`${name}: stream ${i} has ${s.nb_read_frames} frames, expected ${lo === hi ? lo : `${lo}-${hi}`}`);
    }
  });
  return problems;
}

async function outputProblems(want: OutputExpect, path: string, name: string): Promise<string[]> {
  if (want.text || want.json) {
    const text = await readFile(path, 'utf8');
    const problems = (want.text ?? []).filter((re) => !re.test(text)).map((re) => `${name}: does not match ${re}`);
    if (want.json) {
      try {
        problems.push(...want.json(JSON.parse(text)).map((p) => `${name}: ${p}`));
      } catch (e) {
        problems.push(`${name}: not JSON (${(e as Error).message})`);
      }
    }
    return problems;
  }
  // Only the name counts where nothing about the media is asked (fMP4 segments do not stand alone).
  if (!want.format && !want.streams && !want.duration) return [];
  const needFrames = (want.streams ?? []).some((s) => s.frames !== undefined);
  let info: Probed;
  try {
    info = await ffprobe(path, needFrames);
  } catch (e) {
    return [`${name}: ffprobe cannot read it (${(e as Error).message.split('\n').slice(-2).join(' ')})`];
  }
  const problems: string[] = [];
  if (want.format && !info.format.format_name.split(',').includes(want.format))
    problems.push(`${name}: container ${info.format.format_name}, expected ${want.format}`);
  if (want.streams) problems.push(...streamProblems(name, info.streams, want.streams));
  if (want.duration) {
    const d = Number(info.format.duration);
    const [lo, hi] = want.duration;
    if (!(d >= lo && d <= hi)) problems.push(`${name}: lasts ${info.format.duration ?? 'unknown'} s, expected ${lo}-${hi} s`);
  }
  return problems;
}

/** Every way the files a recipe gave differ from what it expects; empty when they match. */
export async function checkOutputs(recipe: Recipe, files: Array<{ fileName: string; path: string }>): Promise<string[]> {
  const problems: string[] = [];
  const claimed = new Set<string>();
  for (const want of recipe.expect) {
    if (want.count !== undefined) {
      const re = want.names ?? patternRegExp(want.file);
      const matching = files.filter((f) => re.test(f.fileName)).sort((a, b) => a.fileName.localeCompare(b.fileName));
      for (const f of matching) claimed.add(f.fileName);
      const [lo, hi] = typeof want.count === 'number' ? [want.count, want.count] : want.count;
      if (matching.length < lo || matching.length > hi)
        problems.push(`${want.file}: ${matching.length} files, expected ${lo === hi ? lo : `${lo}-${hi}`}`);
      if (matching[0]) problems.push(...(await outputProblems(want, matching[0].path, matching[0].fileName)));
      continue;
    }
    const file = files.find((f) => f.fileName === want.file);
    if (!file) {
      problems.push(`${want.file}: missing (got ${files.map((f) => f.fileName).join(', ') || 'nothing'})`);
      continue;
    }
    claimed.add(file.fileName);
    problems.push(...(await outputProblems(want, file.path, file.fileName)));
  }
  const extra = files.filter((f) => !claimed.has(f.fileName)).map((f) => f.fileName);
  if (extra.length > 0) problems.push(`unexpected files: ${extra.join(', ')}`);
  return problems;
}
