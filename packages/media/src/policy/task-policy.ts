// The whole check of a processing request, before any file is fetched or any process started:
// shape (task-shape.ts), then each output's options (option-policy.ts), then the limits that span
// outputs (files written, filtergraph labels).
import { LIMITS } from './limits.js';
import { checkOutputOptions, type PlannedOutput } from './option-policy.js';
import { refuse, show } from './refuse.js';
import { validateTaskShape, type TaskInput, type TaskShapeOptions, type ValidatedTask } from './task-shape.js';

export interface PlannedTask {
  inputs: TaskInput[];
  outputs: PlannedOutput[];
  webhookUrl?: string;
  /** Most files the task can write (the runner still counts what was written). */
  maxFiles: number;
}

/** Applies the option policy to an already shape-checked task. */
export function planTask(task: ValidatedTask): PlannedTask {
  const inputCount = task.inputs.length;
  const outputs = task.outputs.map((o) => checkOutputOptions(o.options, { fileName: o.file, inputCount }));
  const maxFiles = outputs.reduce((n, o) => n + o.maxFiles, 0);
  if (maxFiles > LIMITS.maxFilesPerTask) {
    refuse(`The task can write up to ${maxFiles} files; at most ${LIMITS.maxFilesPerTask} are allowed (a numbered output counts its -frames:v bound)`);
  }
  // ffmpeg sends a -filter_complex graph's unlabelled outputs to the first output file, which the
  // one-stream bound of a numbered output cannot count; such a graph's outputs cannot be told
  // apart here (split has two unless told otherwise), so a numbered output cannot come first.
  if (outputs[0]?.numberedPattern && outputs.some((o) => o.hasComplexGraph)) {
    refuse(`Output ${show(outputs[0].fileName)} is a numbered pattern and cannot be the first output of a task with -filter_complex: ffmpeg adds the graph's unlabelled outputs to the first output. Put another output first, or use -vf`);
  }
  const produced = new Set(outputs.flatMap((o) => o.graphOutputLabels));
  for (const o of outputs) {
    for (const label of o.mapLabels) {
      if (!produced.has(label)) refuse(`-map [${label}] of output ${show(o.fileName)} selects a label that no -filter_complex graph produces`);
    }
  }
  return { inputs: task.inputs, outputs, ...(task.webhookUrl === undefined ? {} : { webhookUrl: task.webhookUrl }), maxFiles };
}

/**
 * Validates a POST /ffmpeg/process(/async) body completely: every refusal is a DomainError 400
 * naming the refused field or token; nothing here does I/O.
 */
export function validateTask(body: unknown, opts: TaskShapeOptions = {}): PlannedTask {
  return planTask(validateTaskShape(body, opts));
}
