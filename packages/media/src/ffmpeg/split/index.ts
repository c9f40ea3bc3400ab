// Split runs (issue 42): a long encode cut at the input's keyframes, its parts encoded concurrently
// and joined by stream copy into what the bare run writes.
export {
  encodeSplitPart,
  runFfmpegSplit,
  SPLIT_DIR,
  type PartGeometry,
  type SplitContext,
  type SplitRunOptions,
  type SplitRunResult,
} from './run-split.js';
export { planParts, type Part, type PartsPlan, type VideoPacket } from './parts.js';
