// GetJob carries the task a job was submitted with (the web console shows it; console.test.ts
// reads it back for a sync job end to end); ListJobs leaves it out, as a task can be long. The
// public GET /job keeps the spec's fields (gateway jobJson).
import { taskJson } from '@media/platform';
import { newJobDoc } from '../src/domain/job-doc.js';
import { create } from '@bufbuild/protobuf';
import { TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { readStoredTask, storedTask } from '../src/domain/plan.js';
import { jobDetailMessage, jobMessage } from '../src/domain/views.js';

test('a job reads back with its task as submitted in the detail, not in the list', () => {
  const task = storedTask(
    create(TaskSchema, {
      inputs: [{ filePath: 'dir_abc/in.mp4', options: ['-ss', '1'] }],
      outputs: [{ file: 'out.mp4', options: ['-c:v', 'libx264'], maps: ['[v]'] }],
      filterComplex: '[0:v]scale=320:-2[v]',
    }),
  );
  const doc = newJobDoc({ accountId: 'acc_t', keyId: 'key_t' }, 'async', 'pending', { inputCount: 1, outputCount: 1 }, { task });
  expect(taskJson(jobDetailMessage(doc).task!)).toEqual({
    inputs: [{ file_path: 'dir_abc/in.mp4', options: ['-ss', '1'] }],
    outputs: [{ file: 'out.mp4', options: ['-c:v', 'libx264'], maps: ['[v]'] }],
    filter_complex: '[0:v]scale=320:-2[v]',
  });
  expect(jobMessage(doc).task).toBeUndefined();
  // A probe's record has no task: none is shown.
  expect(
    jobDetailMessage(newJobDoc({ accountId: 'a', keyId: 'k' }, 'probe', 'processing', { inputCount: 1, outputCount: 0 })).task,
  ).toBeUndefined();
});

test('a job stored before the task had one declaration (camelCase) reads back the same', () => {
  const stored = {
    inputs: [{ filePath: 'dir_abc/in.mp4', options: ['-ss', '1'] }, { filePath: 'dir_abc/logo.png' }],
    outputs: [
      { file: 'out.mp4', options: ['-c:v', 'libx264'], maps: ['[v]'] },
      { file: 'b.mp4', options: [] },
    ],
    filterComplex: '[0:v][1:v]overlay[v]',
    outputDirId: 'dir_out',
  };
  const doc = newJobDoc({ accountId: 'acc_t', keyId: 'key_t' }, 'async', 'pending', { inputCount: 2, outputCount: 2 }, { task: stored });
  const task = jobDetailMessage(doc).task!;
  expect(taskJson(task)).toEqual({
    inputs: [{ file_path: 'dir_abc/in.mp4', options: ['-ss', '1'] }, { file_path: 'dir_abc/logo.png' }],
    outputs: [{ file: 'out.mp4', options: ['-c:v', 'libx264'], maps: ['[v]'] }, { file: 'b.mp4' }],
    filter_complex: '[0:v][1:v]overlay[v]',
    output_dir_id: 'dir_out',
  });
  // Stored again as proto JSON, it reads back the same task.
  expect(readStoredTask(storedTask(task))).toEqual(task);
});

test('a task stored by a later version with a field this one lacks still reads (a rollback)', () => {
  const stored = { inputs: [{ file_path: 'dir_abc/in.mp4' }], outputs: [{ file: 'o.mp4', options: ['-c', 'copy'], title: 'new' }] };
  const doc = newJobDoc({ accountId: 'acc_t', keyId: 'key_t' }, 'async', 'pending', { inputCount: 1, outputCount: 1 }, { task: stored });
  expect(taskJson(jobDetailMessage(doc).task!)).toEqual({
    inputs: [{ file_path: 'dir_abc/in.mp4' }],
    outputs: [{ file: 'o.mp4', options: ['-c', 'copy'] }],
  });
});
