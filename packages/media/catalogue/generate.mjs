#!/usr/bin/env node
// Writes packages/media/policy/ffmpeg-catalogue.json: what the FFmpeg build of this machine offers
// (extract.c, compiled against its libav*-dev headers), plus the ffmpeg command-line options that
// `ffmpeg -h full` lists. The task policy judges every entry of it (src/policy/verdicts); a test
// fails when the build in use has an entry the catalogue does not. Run it after changing the
// FFmpeg build: `npm run catalogue` (needs gcc, pkg-config and Debian's libav*-dev packages).
//   --check   exit 1 if the committed file differs from what this machine produces.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, '..', 'policy', 'ffmpeg-catalogue.json');
const LIBS = ['libavdevice', 'libavfilter', 'libavformat', 'libavcodec', 'libavutil', 'libswscale', 'libswresample'];

function extract() {
  const flags = spawnSync('pkg-config', ['--cflags', '--libs', ...LIBS], { encoding: 'utf8' });
  if (flags.status !== 0) {
    throw new Error(
      `pkg-config could not find ${LIBS.join(', ')}: install gcc, pkg-config and the matching -dev packages (Debian: libavdevice-dev libavfilter-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'ffmpeg-catalogue-'));
  try {
    const bin = join(dir, 'extract');
    execFileSync(
      process.env.CC || 'cc',
      ['-O1', '-Wall', '-Wextra', '-o', bin, join(here, 'extract.c'), ...flags.stdout.trim().split(/\s+/)],
      { stdio: 'inherit' },
    );
    return JSON.parse(execFileSync(bin, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The ffmpeg program's own options, from the sections of `ffmpeg -h full` before the library
 * option tables. Names and sections only: whether an option takes a value is the policy's
 * (verdicts/cli-options.ts), since the help does not always show it.
 */
function cliOptions() {
  const text = execFileSync('ffmpeg', ['-hide_banner', '-h', 'full'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const out = {};
  let section = null;
  for (const line of text.split('\n')) {
    if (/AVOptions:$/.test(line)) break;
    const head = /^([A-Z][^:]*):$/.exec(line);
    if (head) {
      section = head[1];
      continue;
    }
    const m = /^-(\S+)/.exec(line);
    if (m && section && !/^Getting help|^Print help/.test(section)) {
      out[m[1]] ??= [];
      const sections = out[m[1]];
      if (!sections.includes(section)) sections.push(section);
    }
  }
  return out;
}

/** Objects and arrays down to `depth` levels are spread over lines; deeper ones stay on one line. */
function stringify(value, depth = 0, indent = '') {
  if (value === null || typeof value !== 'object' || depth >= 3) return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every((v) => typeof v !== 'object' || v === null)) return JSON.stringify(value);
    return `[\n${value.map((v) => inner + stringify(v, depth + 1, inner)).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return '{}';
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${stringify(value[k], depth + 1, inner)}`).join(',\n')}\n${indent}}`;
}

const sorted = (obj) =>
  Object.fromEntries(
    Object.keys(obj)
      .sort()
      .map((k) => [k, obj[k]]),
  );

const raw = extract();
const version = execFileSync('ffmpeg', ['-hide_banner', '-version'], { encoding: 'utf8' })
  .split('\n')[0]
  .replace(/ Copyright.*/, '');
const catalogue = {
  ffmpeg: version,
  versions: raw.versions,
  cli: sorted(cliOptions()),
  shared: raw.shared,
  filters: sorted(raw.filters),
  encoders: sorted(raw.encoders),
  decoders: sorted(raw.decoders),
  muxers: sorted(raw.muxers),
  demuxers: sorted(raw.demuxers),
  bsfs: sorted(raw.bsfs),
  codecs: sorted(raw.codecs),
  extension_muxers: sorted(raw.extension_muxers),
  colors: raw.colors,
  pix_fmts: raw.pix_fmts,
  sample_fmts: raw.sample_fmts,
  channel_layouts: raw.channel_layouts,
  channels: raw.channels,
};
const text = `${stringify(catalogue)}\n`;

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing: differs
  }
  if (committed !== text) {
    console.error(
      `${target} is not what this FFmpeg build (${version}) gives: run \`npm run catalogue\` and commit it, then judge the new entries (src/policy/verdicts).`,
    );
    process.exit(1);
  }
  console.log(`ffmpeg catalogue: up to date (${version})`);
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target} (${version})`);
}
