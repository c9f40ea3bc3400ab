// Errors of the execution layer that the platform table does not name. All are DomainErrors so
// the gateway answers them with their own status and text. ffmpeg's own failure and the timeout use
// the spec texts in `Errors` (platform).
import { DomainError } from '@media/platform';

/** Why a run was aborted: the signal's reason, or the standard AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** "5 GB", "1.5 MB", "300 bytes": limits in error texts, in the decimal units the spec uses. */
export function formatBytes(bytes: number): string {
  const units: [number, string][] = [
    [1e9, 'GB'],
    [1e6, 'MB'],
    [1e3, 'KB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(2))} ${unit}`;
  }
  return `${bytes} bytes`;
}

export const FfmpegErrors = {
  /** An output grew past the per-file limit (the spec: an output over 5 GB fails the job). */
  outputTooLarge: (maxBytes: number) => new DomainError('internal', `Output exceeds the ${formatBytes(maxBytes)} file size limit`),
  /** More files than a task may write (numbered patterns included). */
  tooManyOutputFiles: (maxFiles: number) => new DomainError('internal', `Task writes more than ${maxFiles.toLocaleString('en-US')} files`),
  /** A segment output split into more parts than its share of the task's files (policy/plan/segments.ts). */
  tooManyParts: (fileName: string, maxParts: number) =>
    new DomainError(
      'bad_request',
      `Output '${fileName}' was split into more than ${maxParts.toLocaleString('en-US')} parts, its share of the task's files; make the parts longer (-segment_time) or split at fewer points (-segment_times, -segment_frames)`,
    ),
  /** ffprobe failed; a later issue may settle the exact wording, so it lives in one place. */
  ffprobeFailed: (exitCode: number, detail: string) =>
    new DomainError('internal', `FFprobe command failed with exit code ${exitCode}: ${detail}`),
  /** ffprobe printed more JSON than we are willing to hold. */
  probeOutputTooLarge: (maxBytes: number) => new DomainError('internal', `Probe output exceeds the ${formatBytes(maxBytes)} limit`),
  /** An upload that is not a media file we accept (a playlist, a reference file, unknown data). */
  inputRefused: (name: string, why: string) => new DomainError('bad_request', `Input file '${name}' is not a supported media file: ${why}`),
  /** An output name that could escape the output directory. The policy layer should never pass one. */
  badOutputName: (name: string) => new DomainError('bad_request', `Output file name '${name}' is not allowed`),
};
