// Public API of the ffmpeg task policy: pure checks, no I/O. Everything refused is a DomainError
// with kind 'bad_request' (400) whose message names the refused field or token.
export { LIMITS as POLICY_LIMITS } from './limits.js';
export { validateTaskShape, parseFilePath, httpsUrlProblem } from './task-shape.js';
export type { TaskInput, TaskOutput, ValidatedTask, TaskShapeOptions } from './task-shape.js';
export { validateTask, planTask } from './task-policy.js';
export type { PlannedTask } from './task-policy.js';
export { checkOutputOptions } from './option-policy.js';
export type { OutputContext, PlannedOutput } from './option-policy.js';
export { checkFilterGraph } from './filter-policy.js';
export type { GraphContext, CheckedGraph } from './filter-policy.js';
export { parseFilterGraph, FilterGraphSyntaxError } from './filtergraph/parse-graph.js';
export type { GraphFilter, ParsedGraph } from './filtergraph/parse-graph.js';
export { parseFilterArgs } from './filtergraph/parse-args.js';
export type { FilterArgs } from './filtergraph/parse-args.js';
export { serializeFilterGraph, escapeOptionValue, escapeGraphArgs } from './filtergraph/serialize.js';
export { dimensionProblem } from './filtergraph/dimension.js';
export {
  isNumberedPattern, parseNumberedPattern, numberedPatternRegex, expandNumberedPattern, countNumberedFiles,
} from './numbered-pattern.js';
export type { NumberedPattern } from './numbered-pattern.js';
export { fileNameProblem, isValidFileName, isValidDirId } from './file-name.js';
export { pathOrUrlProblem } from './path-like.js';
export * from './probe-options.js';
export { policyDocument, POLICY_VERSION } from './policy-document.js';
export type { PolicyDocument } from './policy-document.js';
