// What fonts ffmpeg's drawtext and subtitles filters may use: fontconfig is given a file of its
// own in the job's work directory that names only the service's font directories.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const DEFAULT_FONT_DIRS: readonly string[] = ['/usr/share/fonts'];

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Writes workDir/fonts.conf; returns the environment that points fontconfig at it (its cache stays in workDir). */
export async function fontEnv(workDir: string, fontDirs: readonly string[] | undefined): Promise<Record<string, string>> {
  const dirs = fontDirs ?? DEFAULT_FONT_DIRS;
  const conf = `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig>\n${dirs.map((d) => `  <dir>${xmlEscape(d)}</dir>\n`).join('')}  <cachedir>${xmlEscape(join(workDir, '.cache', 'fontconfig'))}</cachedir>\n</fontconfig>\n`;
  const path = join(workDir, 'fonts.conf');
  await writeFile(path, conf);
  return { FONTCONFIG_FILE: path };
}
