// The public JSON of an output file and of a request's usage, as the interface spells them: one
// shape for the sync answer, GET /job/{id}, probes and webhook bodies.

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

export type TaskJson = {
  inputs: { file_path: string; options?: string[] }[];
  outputs: { file: string; options?: string[]; maps?: string[] }[];
  filter_complex?: string;
  output_dir_id?: string;
};

/**
 * A task as a request body spells it (the inverse of @media/media's readTaskRequest, which a test
 * holds it to), from the proto message or a stored record: empty option and map lists left out.
 */
export function taskJson(t: {
  inputs: { filePath: string; options?: string[] }[];
  outputs: { file: string; options?: string[]; maps?: string[] }[];
  filterComplex?: string | undefined;
  outputDirId?: string | undefined;
}): TaskJson {
  const list = (values: string[] | undefined) => (values?.length ? [...values] : undefined);
  return {
    inputs: t.inputs.map((i) => ({ file_path: i.filePath, ...(list(i.options) && { options: list(i.options) }) })),
    outputs: t.outputs.map((o) => ({
      file: o.file,
      ...(list(o.options) && { options: list(o.options) }),
      ...(list(o.maps) && { maps: list(o.maps) }),
    })),
    ...(t.filterComplex === undefined ? {} : { filter_complex: t.filterComplex }),
    ...(t.outputDirId === undefined ? {} : { output_dir_id: t.outputDirId }),
  };
}
