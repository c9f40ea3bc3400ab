// One ffmpeg run in a job's work directory: inputs under it, outputs into out/, sandboxed,
// time-limited, watched for runaway output, with progress reports.
import { mkdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { Errors, MAX_FILE_BYTES } from '@media/platform';
import { ffmpegArgv, OUT_DIR, type FfmpegOutput, type OpenInput } from './argv.js';
import { resolveBinaries } from './binaries.js';
import { diskNames, LONG_NAMES_DIR } from './disk-names.js';
import { commonFailure, exitCodeOf, failureDetail, workDirSpellings } from './exit.js';
import { FfmpegErrors } from './errors.js';
import { limitsFor } from './limits.js';
import { byFileName, checkOutputLimits, listOutputs, missingOutputs, watchOutputs, type OutputFile } from './outputs.js';
import { createProgressParser, type FfmpegProgress } from './progress.js';
import { ReportCollector, type ReportSpec } from './report.js';
import { startingShare } from './disk-watch.js';
import { fileSizeCap, watchRunBounds, type RunBounds } from './run-bounds.js';
import { type SandboxRunOptions, startSandboxed } from './sandbox.js';
import { processCpuSec, watchSpeedFloor, type SpeedFloor, type SpeedFloorWatch } from './speed-floor.js';
import { checkShortestStreams, type ShortestCheck } from '../policy/index.js';

export const DEFAULT_MAX_OUTPUT_FILES = 1000;
/** The spec's 5 GB per file. */
export const DEFAULT_MAX_OUTPUT_BYTES = MAX_FILE_BYTES;

/** An output as the runner sees it: its argv part, and what it is expected to leave in out/. */
export interface RunOutput extends FfmpegOutput {
  /** file/hls/dash: fileName must exist; numbered, segments: at least one file of the pattern; report: the runner writes it. */
  kind: 'file' | 'numbered' | 'segments' | 'hls' | 'dash' | 'report';
  /** Segments: the most parts it may write (the plan's share); more fail the run. */
  maxFiles?: number;
  report?: Omit<ReportSpec, 'fileName'>;
  /** The plan's -shortest check for an output without -map (PlannedOutput.shortest). */
  shortest?: ShortestCheck;
}

export interface RunFfmpegOptions extends SandboxRunOptions {
  /** Absolute path of the job's fresh work directory (ffmpeg's cwd). */
  workDir: string;
  inputs: OpenInput[];
  /** The task's filter_complex (canonical), given once. */
  filterComplex?: string;
  outputs: RunOutput[];
  /** More environment for ffmpeg (FONTCONFIG_FILE for drawtext and subtitles). */
  env?: Readonly<Record<string, string>>;
  maxOutputFiles?: number;
  maxOutputBytes?: number;
  /** Expected duration of the processed media, for percent and ETA. */
  durationSec?: number;
  onProgress?: (p: FfmpegProgress) => void;
  /** Ends the run (500, uncharged) when its output's media time advances slower than this (speed-floor.ts). */
  speedFloor?: SpeedFloor;
  /** Minimum time between progress reports (default 1000 ms; the final report always comes). */
  progressIntervalMs?: number;
  /** Tool path override (default: `resolveBinaries()`). */
  ffmpegPath?: string;
  /** How often out/ is checked during the run (default 500 ms). */
  watchIntervalMs?: number;
  /** The disk reserve and the memory cap, watched while ffmpeg runs (run-bounds.ts). */
  bounds?: RunBounds;
}

export interface RunResult {
  /** Wall time of the ffmpeg process, spawn to exit. */
  durationMs: number;
  /** Every file written under out/, numbered-pattern expansions included, sorted by name. */
  outputs: OutputFile[];
}

export async function runFfmpeg(opts: RunFfmpegOptions): Promise<RunResult> {
  if (!isAbsolute(opts.workDir)) throw new TypeError('workDir must be an absolute path');
  const maxFiles = opts.maxOutputFiles ?? DEFAULT_MAX_OUTPUT_FILES;
  const maxBytes = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  // Only the probe tells which streams ffmpeg picks for an output without -map (a 400 if they are all endless).
  checkShortestStreams(opts.outputs, opts.inputs);
  // Names past what a disk takes are written under the service's (disk-names.ts).
  const named = diskNames(opts.outputs);
  const reportSpecs = named.outputs.flatMap((o) => (o.kind === 'report' && o.report ? [{ fileName: o.fileName, ...o.report }] : []));
  const reports = reportSpecs.length > 0 ? new ReportCollector(reportSpecs) : undefined;
  const args = ffmpegArgv({
    inputs: opts.inputs,
    ...(opts.filterComplex === undefined ? {} : { filterComplex: opts.filterComplex }),
    outputs: named.outputs,
    reports: reports !== undefined,
  }); // validates before anything runs
  const bin = opts.ffmpegPath ?? (await resolveBinaries({ logger: opts.logger })).ffmpeg;
  const outDir = join(opts.workDir, OUT_DIR);
  await mkdir(named.renamed ? join(outDir, LONG_NAMES_DIR) : outDir, { recursive: true });

  let floor: SpeedFloorWatch | undefined;
  let ffmpegPid: number | undefined;
  const toCaller = opts.onProgress
    ? createProgressParser({ durationSec: opts.durationSec, intervalMs: opts.progressIntervalMs, onProgress: opts.onProgress })
    : undefined;
  // The floor sees every report (ffmpeg's are 0.5 s apart), not only those passed on to onProgress.
  const samples = opts.speedFloor ? createProgressParser({ intervalMs: 0, onProgress: (p) => floor?.sample(p.outTimeSec) }) : undefined;
  const progress =
    toCaller || samples
      ? (chunk: Buffer | string) => {
          toCaller?.(chunk);
          samples?.(chunk);
        }
      : undefined;
  // The disk share this run starts with (none left: the service's shortage, 503, as before staging).
  const diskShare = opts.bounds?.disk ? await startingShare(opts.bounds.disk) : undefined;
  if (diskShare !== undefined && diskShare <= 0) throw Errors.diskFull();
  const fileCap = fileSizeCap(maxBytes, diskShare, opts.outputs.filter((o) => o.kind !== 'report').length);
  const proc = await startSandboxed({
    bin,
    args,
    cwd: opts.workDir,
    timeoutMs: opts.timeoutMs,
    limits: limitsFor(opts.timeoutMs, fileCap, opts.limits),
    signal: opts.signal,
    onStdout: progress,
    onSpawn: (pid) => {
      ffmpegPid = pid;
      opts.onSpawn?.(pid);
    },
    logger: opts.logger,
    ...(opts.forkServers ? { forkServers: opts.forkServers } : {}),
    ...(reports ? { stderrFilter: reports.filter } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  });
  const parts = opts.outputs.flatMap((o) => (o.kind === 'segments' && o.maxFiles ? [{ fileName: o.fileName, maxFiles: o.maxFiles }] : []));
  const watcher = watchOutputs(outDir, { maxFiles, maxBytes, intervalMs: opts.watchIntervalMs, parts }, (err) => proc.kill(err));
  const bounds = watchRunBounds(proc.pid, outDir, opts.bounds ?? {}, (err) => proc.kill(err), diskShare);
  let overBound: Error | undefined; // a bound the kernel enforced (run-bounds.ts)
  const speedFloor = opts.speedFloor;
  if (speedFloor)
    floor = watchSpeedFloor(
      speedFloor,
      (advanced) => proc.kill(Errors.processingTooSlow(advanced, speedFloor.windowMs / 1000, speedFloor.minSpeed)),
      () => processCpuSec(ffmpegPid ?? proc.pid),
    );
  const exit = await proc.done.finally(async () => {
    floor?.stop();
    await watcher.stop();
    overBound = await bounds.stop();
  });

  const common = commonFailure(exit) ?? overBound;
  if (common !== undefined) throw common;
  // RLIMIT_FSIZE: the kernel stopped a write past the per-file limit.
  if (exit.signal === 'SIGXFSZ')
    throw fileCap < maxBytes && diskShare !== undefined ? Errors.diskShareExceeded(diskShare) : FfmpegErrors.outputTooLarge(maxBytes);
  if (exit.exitCode !== 0) {
    throw Errors.ffmpegFailed(exitCodeOf(exit), failureDetail(exit, 'ffmpeg', await workDirSpellings(opts.workDir)));
  }
  // The null muxer opens no file: the report is written here, where the output would be.
  for (const spec of reportSpecs) await writeFile(join(outDir, spec.fileName), reports!.render(spec), { flag: 'wx' });
  const outputs = (await listOutputs(outDir)).map((f) => ({ ...f, fileName: named.userName(f.fileName) })).sort(byFileName);
  const over = checkOutputLimits(outputs, maxFiles, maxBytes, parts);
  if (over) throw over;
  const missing = missingOutputs(
    opts.outputs.filter((o) => o.kind !== 'report').map((o) => o.fileName),
    outputs,
  );
  if (missing.length > 0) {
    const names = missing.map((m) => `'${m}'`).join(', ');
    throw Errors.ffmpegFailed(
      0,
      `no output was written for ${names}: no frame reached ${missing.length === 1 ? 'it' : 'them'} (is -ss past the end of the input, or does a filter drop every frame?)`,
    );
  }
  return { durationMs: exit.durationMs, outputs };
}
