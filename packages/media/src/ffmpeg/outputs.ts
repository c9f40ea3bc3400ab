// What ffmpeg wrote into out/: listed at the end, and watched during the run so a runaway task
// (a pattern writing millions of frames, a file growing without end) is stopped early.
import { lstat, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { countNumberedFiles, parseNumberedPattern } from '../policy/numbered-pattern.js';
import { FfmpegErrors } from './errors.js';

export interface OutputFile {
  /** Name relative to out/ (numbered patterns appear expanded: thumb_001.png ...). */
  fileName: string;
  /** Absolute path. */
  path: string;
  size: number;
}

/** Regular files under `outDir`, sorted by name. */
export async function listOutputs(outDir: string): Promise<OutputFile[]> {
  const files: OutputFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // vanished or never created
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) {
        try {
          files.push({ fileName: relative(outDir, path), path, size: (await lstat(path)).size });
        } catch {
          // removed between readdir and lstat
        }
      }
    }
  };
  await walk(outDir);
  return files.sort(byFileName);
}

/** The order outputs are listed in: by name, code unit by code unit. */
export const byFileName = (a: { fileName: string }, b: { fileName: string }): number =>
  a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0;

/**
 * Outputs of the task ffmpeg wrote nothing for: a file not there, a numbered pattern without one
 * file. ffmpeg exits 0 when no frame reaches an output (-ss past the end, a filter that drops
 * every frame); the task then did not do what it asked, so it fails and is not charged.
 */
export function missingOutputs(declared: readonly string[], files: readonly OutputFile[]): string[] {
  const names = files.map((f) => f.fileName);
  return declared.filter((name) => (parseNumberedPattern(name) === null ? !names.includes(name) : countNumberedFiles(name, names) === 0));
}

/** A segment output's bound: at most maxFiles files of its numbered pattern. */
export interface PartsBound {
  fileName: string;
  maxFiles: number;
}

/** The limit error the files break, if any. */
export function checkOutputLimits(
  files: OutputFile[],
  maxFiles: number,
  maxBytes: number,
  parts: readonly PartsBound[] = [],
): Error | undefined {
  const names = parts.length > 0 ? files.map((f) => f.fileName) : [];
  for (const p of parts) if (countNumberedFiles(p.fileName, names) > p.maxFiles) return FfmpegErrors.tooManyParts(p.fileName, p.maxFiles);
  if (files.length > maxFiles) return FfmpegErrors.tooManyOutputFiles(maxFiles);
  if (files.some((f) => f.size > maxBytes)) return FfmpegErrors.outputTooLarge(maxBytes);
  return undefined;
}

/**
 * Polls `outDir` every `intervalMs` and calls `onViolation` once when a limit is broken. Polling
 * (not fs.watch) because it is cheap at these sizes and behaves the same on every filesystem.
 */
export function watchOutputs(
  outDir: string,
  limits: { maxFiles: number; maxBytes: number; intervalMs?: number; parts?: readonly PartsBound[] },
  onViolation: (err: Error) => void,
): { stop(): Promise<void> } {
  let stopped = false;
  let current: Promise<void> | undefined; // at most one listing in flight; slow disks skip ticks
  const check = async () => {
    const err = checkOutputLimits(await listOutputs(outDir), limits.maxFiles, limits.maxBytes, limits.parts);
    if (err && !stopped) {
      stopped = true;
      onViolation(err);
    }
  };
  const timer = setInterval(() => {
    if (stopped || current) return;
    current = check()
      .catch(() => undefined)
      .finally(() => (current = undefined));
  }, limits.intervalMs ?? 500);
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
