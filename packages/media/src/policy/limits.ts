// Every number the task validation and the option policy enforce, in one place so the published
// policy (ffmpeg-policy.json, docs/ffmpeg-policy.md) and the code cannot disagree. The spec's
// file and directory rules come from platform's spec-rules.ts.
import { MAX_DIR_ID_CHARS, MAX_FILE_NAME_CHARS } from '@media/platform';

export const LIMITS = {
  // Spec, Limits part.
  maxInputs: 100,
  maxOutputs: 50,
  maxFilesPerTask: 1000,
  maxOptions: 400,
  maxOptionChars: 8192,
  maxFilterGraphChars: 32768,
  maxFileNameChars: MAX_FILE_NAME_CHARS,
  maxDirIdChars: MAX_DIR_ID_CHARS,
  // Ours: bounds that keep one task from exhausting a worker.
  /** Input URLs and webhook_url, as the task gives them (MAX_URL_LENGTH bounds any URL fetched). */
  maxUrlChars: 2048,
  /** Width or height written as a literal (option -s, scale=W:H, showwaves s=WxH). */
  maxDimension: 8192,
  /**
   * Largest value a size expression (scale=iw*2:-2) may reach when every input dimension is at most
   * maxDimension; ffmpeg's own frame limit is about 16384x16384.
   */
  maxDimensionExpression: 16384,
  maxFrameRate: 240,
  maxFrames: 100000,
  maxDurationSec: 86400,
  maxThreads: 16,
  maxSampleRate: 384000,
  maxChannels: 32,
  maxFiltersPerGraph: 256,
  /** Pads created or joined by one filter (split outputs, amix/hstack inputs). */
  maxFilterPads: 32,
} as const;

/**
 * Any URL the fetcher parses, redirect targets included: a server's Location may be longer than
 * the task's own URLs (LIMITS.maxUrlChars), but not without bound. Not a task limit, so not in
 * the published policy.
 */
export const MAX_URL_LENGTH = 8192;
