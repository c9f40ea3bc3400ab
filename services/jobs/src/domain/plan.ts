// The Jobs service does not trust the gateway's check: the task is validated again against the
// same policy before anything is staged or run.
import { validateTask } from '@media/media';
import type { PlannedTask } from './task.js';

/** Accepts the proto Task or the stored copy of one (same field names). */
export function planTask(task: { inputs: { filePath: string }[]; outputs: { file: string; options: string[] }[] }): PlannedTask {
  const body = { task: { inputs: task.inputs.map((i) => ({ file_path: i.filePath })), outputs: task.outputs.map((o) => ({ file: o.file, options: o.options })) } };
  const planned = validateTask(body);
  return {
    inputs: planned.inputs.map((i) => (i.kind === 'url' ? { kind: 'url', url: i.url } : { kind: 'uploaded', dirId: i.dirId, fileName: i.fileName })),
    outputs: planned.outputs.map((o) => ({ fileName: o.fileName, args: o.args })),
  };
}
