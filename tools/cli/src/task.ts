// The task of `media run`: a task file (a POST /ffmpeg/process body, or the bare task), or the
// command line (inputs, one output, its options after --).
import { readFile } from 'node:fs/promises';
import type { Task } from '@media/client';
import { UsageError } from './usage-error.js';

export interface TaskFlags {
  input?: string[];
  output?: string;
  map?: string[];
  filterComplex?: string;
  outputDir?: string;
}

export async function readTaskFile(path: string): Promise<{ task: Task; webhookUrl?: string }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read the task file ${path}: ${(err as Error).message}`);
  }
  const body = parsed as { task?: Task; webhook_url?: string; inputs?: unknown };
  if (body && typeof body === 'object' && body.task) return { task: body.task, webhookUrl: body.webhook_url };
  if (body && typeof body === 'object' && body.inputs) return { task: parsed as Task };
  throw new UsageError(`${path} holds neither {"task": {...}} nor a task with "inputs" and "outputs"`);
}

export function taskFromFlags(flags: TaskFlags, outputOptions: string[], filePaths: string[]): Task {
  if (!flags.output) throw new UsageError('give a task file, or --input and --output (output options after --)');
  return {
    inputs: filePaths.map((file_path) => ({ file_path })),
    outputs: [{ file: flags.output, options: outputOptions, ...(flags.map?.length ? { maps: flags.map } : {}) }],
    ...(flags.filterComplex ? { filter_complex: flags.filterComplex } : {}),
    ...(flags.outputDir ? { output_dir_id: flags.outputDir } : {}),
  };
}
