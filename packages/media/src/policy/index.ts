// Public API of the ffmpeg task policy: pure checks, no I/O. Everything refused is a DomainError
// with kind 'bad_request' (400) whose message names the refused field or token.
export { LIMITS as POLICY_LIMITS } from './limits.js';
export { readTaskRequest, parseFilePath, httpsUrlProblem, checkWebhookUrlForm, isRequiredField } from './task-shape.js';
export type { TaskInput, TaskRequest, TaskShapeOptions } from './task-shape.js';
export { planTask } from './plan/plan-task.js';
export { checkDemuxerOptions, IMAGE_EXTENSIONS } from './plan/inputs.js';
export { checkShortestStreams } from './plan/shortest.js';
export type { OpenedInput } from './plan/shortest.js';
export { splitVerdict, SPLIT_MUXERS, SPLIT_VIDEO_ENCODERS } from './plan/split.js';
export type { SplitVerdict } from './plan/split.js';
export { PLAN_VERSION } from './plan/types.js';
export type { TaskPlan, PlannedInput, PlannedOutput, PlannedSource, SideUse, ShortestCheck } from './plan/types.js';
export { checkFilterGraph } from './filter-policy.js';
export type { GraphContext, CheckedGraph } from './filter-policy.js';
export { parseFilterGraph, FilterGraphSyntaxError } from './filtergraph/parse-graph.js';
export type { GraphFilter, ParsedGraph } from './filtergraph/parse-graph.js';
export { parseFilterArgs } from './filtergraph/parse-args.js';
export type { FilterArgs } from './filtergraph/parse-args.js';
export { serializeFilterGraph, escapeOptionValue, escapeGraphArgs } from './filtergraph/serialize.js';
export { dimensionProblem } from './filtergraph/dimension.js';
export {
  isNumberedPattern,
  parseNumberedPattern,
  numberedPatternRegex,
  expandNumberedPattern,
  countNumberedFiles,
} from './numbered-pattern.js';
export type { NumberedPattern } from './numbered-pattern.js';
export { fileNameProblem, isValidFileName, isValidDirId } from './file-name.js';
export { pathOrUrlProblem } from './path-like.js';
export { parseConcatList, writeConcatList } from './concat-list.js';
export type { ConcatList, ConcatEntry } from './concat-list.js';
export { CATALOGUE } from './catalogue/catalogue.js';
export { VERDICTS, entryVerdict } from './verdicts/index.js';
export { FRAME_LOCAL_FILTERS, frameLocalProblem } from './verdicts/frame-local.js';
export * from './probe-options.js';
export { policyDocument, POLICY_VERSION } from './policy-document.js';
export type { PolicyDocument } from './policy-document.js';
