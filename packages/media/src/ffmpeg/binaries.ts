// Finding ffmpeg and ffprobe: the system binaries on PATH first (distribution builds get security
// fixes), else the binaries shipped by the optional npm packages, with a warning.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface Binaries {
  ffmpeg: string;
  ffprobe: string;
  /** 'path' when both came from PATH; 'npm' when at least one is an npm fallback binary. */
  source: 'path' | 'npm';
}

export interface ResolveBinariesOptions {
  /** The environment whose PATH is searched (default: process.env). */
  env?: NodeJS.ProcessEnv;
  logger?: WarnLogger;
}

const NPM_PACKAGES = { ffmpeg: '@ffmpeg-installer/ffmpeg', ffprobe: '@ffprobe-installer/ffprobe' } as const;
type Tool = keyof typeof NPM_PACKAGES;

// One lookup per PATH value: the answer cannot change while the process runs.
const cache = new Map<string, Promise<Binaries>>();

/** ffmpeg and ffprobe to run. Throws a clear error when either is nowhere to be found. */
export function resolveBinaries(opts: ResolveBinariesOptions = {}): Promise<Binaries> {
  const pathVar = (opts.env ?? process.env).PATH ?? '';
  let found = cache.get(pathVar);
  if (!found) {
    found = lookUp(pathVar, opts.logger);
    cache.set(pathVar, found);
    found.catch(() => cache.delete(pathVar)); // a failed lookup may succeed after an install
  }
  return found;
}

/** Forget cached answers (tests, or after installing ffmpeg into a running process). */
export function clearBinaryCache(): void {
  cache.clear();
}

async function lookUp(pathVar: string, logger?: WarnLogger): Promise<Binaries> {
  const [ffmpeg, ffprobe] = await Promise.all([findTool('ffmpeg', pathVar), findTool('ffprobe', pathVar)]);
  const fromNpm = [ffmpeg, ffprobe].filter((t) => t.source === 'npm');
  if (fromNpm.length > 0) {
    logger?.warn(
      { ffmpeg: ffmpeg.path, ffprobe: ffprobe.path },
      'ffmpeg/ffprobe not found on PATH: using the binaries of the npm packages @ffmpeg-installer/@ffprobe-installer ' +
        '(older builds; install ffmpeg from your distribution for security fixes)',
    );
  }
  return { ffmpeg: ffmpeg.path, ffprobe: ffprobe.path, source: fromNpm.length > 0 ? 'npm' : 'path' };
}

async function findTool(tool: Tool, pathVar: string): Promise<{ path: string; source: 'path' | 'npm' }> {
  const onPath = await findOnPath(tool, pathVar);
  if (onPath) return { path: onPath, source: 'path' };
  const fromNpm = await npmBinary(tool);
  if (fromNpm) return { path: fromNpm, source: 'npm' };
  throw new Error(
    `${tool} not found: put ${tool} on PATH (Debian: apt-get install -y ffmpeg) or install the optional npm package ${NPM_PACKAGES[tool]}`,
  );
}

/** The first executable regular file named `name` in the PATH directories (absolute ones only). */
export async function findOnPath(name: string, pathVar: string): Promise<string | undefined> {
  for (const dir of pathVar.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue; // relative PATH entries would depend on the cwd
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function npmBinary(tool: Tool): Promise<string | undefined> {
  try {
    // A variable specifier: the packages are optional dependencies and may be absent.
    const specifier: string = NPM_PACKAGES[tool];
    const mod = (await import(specifier)) as { path?: unknown; default?: { path?: unknown } };
    const file = mod.default?.path ?? mod.path;
    return typeof file === 'string' && (await isExecutableFile(file)) ? file : undefined;
  } catch {
    return undefined; // not installed, or no build for this platform (the packages throw then)
  }
}
