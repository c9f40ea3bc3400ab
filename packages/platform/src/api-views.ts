// The public JSON of an output file and of a request's usage, as the interface spells them: one
// shape for the sync answer, GET /job/{id}, probes and webhook bodies.
import { toJson } from '@bufbuild/protobuf';
import { type Task, type TaskJson, TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';

export type ResultItemJson = {
  file_name: string;
  size_bytes: number;
  download_url: string;
};

export type UsageJson = {
  time_sec: number;
  input_size_gb: number;
  output_size_gb: number;
  gb_sec: number;
};

/** An output file, from the proto message (sizes are int64) or a stored record. */
export const resultItemJson = (r: { fileName: string; sizeBytes: number | bigint; downloadUrl: string }): ResultItemJson => ({
  file_name: r.fileName,
  size_bytes: Number(r.sizeBytes),
  download_url: r.downloadUrl,
});

/** A request's usage; a missing one reads as zeros (nothing was charged). */
export const usageJson = (u: { timeSec: number; inputSizeGb: number; outputSizeGb: number; gbSec: number } | undefined): UsageJson => ({
  time_sec: u?.timeSec ?? 0,
  input_size_gb: u?.inputSizeGb ?? 0,
  output_size_gb: u?.outputSizeGb ?? 0,
  gb_sec: u?.gbSec ?? 0,
});

export type { TaskJson } from '@media/proto/media/jobs/v1/jobs_pb.js';

/**
 * A task as a request body spells it: the proto Task's JSON (its json_names are the API's), so the
 * inverse of @media/media's readTaskRequest (a test holds it to that); empty lists left out.
 */
export const taskJson = (task: Task): TaskJson => toJson(TaskSchema, task);
