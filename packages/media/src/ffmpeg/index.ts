// The ffmpeg/ffprobe execution layer: binary resolution, input allow-listing by probing, the
// sandboxed runners, progress parsing and sanitized error details. See docs/sandbox.md.
export { resolveBinaries, clearBinaryCache, type Binaries, type ResolveBinariesOptions, type WarnLogger } from './binaries.js';
export { probeInput, type ProbeInputOptions, type ProbedInput, type ProbedStream } from './probe-input.js';
export {
  runFfmpeg,
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_MAX_OUTPUT_FILES,
  type RunFfmpegOptions,
  type RunOutput,
  type RunResult,
} from './run-ffmpeg.js';
export { ReportCollector, MAX_REPORT_BYTES, type ReportSpec } from './report.js';
export {
  runFfprobe,
  DEFAULT_MAX_PROBE_JSON_BYTES,
  PROBE_ADDRESS_SPACE_BYTES,
  PROBE_CONCURRENCY,
  type RunFfprobeOptions,
  type FfprobeResult,
} from './run-ffprobe.js';
export {
  ffmpegArgv,
  ffprobeArgv,
  ffmpegGlobalFlags,
  FFPROBE_GLOBAL_FLAGS,
  OUT_DIR,
  type FfmpegCommand,
  type FfmpegInput,
  type FfmpegOutput,
  type OpenInput,
} from './argv.js';
export { ALLOWED_DEMUXERS, allowedDemuxer, refusedStreamCodec, type AllowedDemuxer } from './demuxers.js';
export { createProgressParser, type FfmpegProgress, type ProgressParserOptions } from './progress.js';
export {
  concatDurationSec,
  inputDurationSec,
  outputDurationSec,
  plannedDurationSec,
  sequenceTiming,
  SEQUENCE_DEFAULT_FPS,
  type TimedInput,
  type TimedRun,
} from './planned-duration.js';
export { watchSpeedFloor, speedFloorConfig, type SpeedFloor, type SpeedFloorWatch } from './speed-floor.js';
export { sanitizeDetail, type SanitizeOptions } from './sanitize.js';
export { FfmpegErrors, formatBytes } from './errors.js';
export { limitsFor, type SandboxLimits } from './limits.js';
export type { RunBounds } from './run-bounds.js';
export { type DiskBound, judgeDisk, watchDisk } from './disk-watch.js';
export { defaultRunMemoryBytes, machineMemoryBytes, watchMemory, MIN_RUN_MEMORY_BYTES } from './memory-watch.js';
export { createForkServers, forkServerConfig, serviceForkServers, type ForkServersOption } from './sandbox.js';
export type { ForkServerPool } from '@media/fork-server';
export type { OutputFile } from './outputs.js';
export * from './split/index.js';
