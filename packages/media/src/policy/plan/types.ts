// A task as the service will run it: made once by planTask from the task the user sent (the proto
// Task of jobs.proto, its one declaration), kept with an async job, and turned into ffmpeg's argv
// by the runner once the inputs are staged. Plain JSON (stored as is); PLAN_VERSION changes
// whenever its meaning does.

export const PLAN_VERSION = 1;

export type PlannedSource =
  | { kind: 'uploaded'; dirId: string; fileName: string }
  | { kind: 'url'; url: string }
  /** A generated input (-f lavfi): its filter graph, checked and in canonical form; nothing is staged. */
  | { kind: 'generated'; graph: string };

export type SideUse = 'font' | 'text' | 'subtitles' | 'data' | 'attachment';

export interface PlannedInput {
  /** Position in task.inputs. */
  index: number;
  source: PlannedSource;
  /**
   * media: one file ffmpeg opens (-i); sequence: uploaded files matching a numbered pattern
   * (img_%03d.png), opened by the image2 demuxer; concat: an uploaded concat list whose entries
   * are staged and the list rewritten; side: a file a filter or -attach reads (a font, subtitles),
   * staged but not opened with -i; generated: a filter graph opened by the lavfi demuxer.
   */
  kind: 'media' | 'sequence' | 'concat' | 'side' | 'generated';
  /**
   * Side files: what reads it and where it is staged (relative to the work directory); `named`:
   * not in task.inputs, named by its file name in a filter option and looked up in the directory
   * of the task's uploaded inputs (its index then follows the task's inputs).
   */
  side?: { use: SideUse; path: string; named?: true };
  /** Generated inputs: the stream types the graph gives, in order of its outputs. */
  streams?: Array<'video' | 'audio'>;
  /** Generated inputs that end: how long they play, by their -t or their sources' d= (for progress). */
  durationSec?: number;
  /** The checked input options, in order; -f is not among them (see demuxer). */
  args: string[];
  /** The demuxer the task named with -f (full catalogue name); else the probe decides. */
  demuxer?: string;
  /** Demuxer options given without -f: checked against the demuxer the probe finds. */
  demuxerOptions: string[];
  /** The format options among args (-video_size of a raw input): the probe of a forced demuxer needs them too. */
  probeArgs: string[];
  /** It plays without end (-loop 1, -stream_loop -1, a source without d=) and nothing in its options bounds it. */
  endless: boolean;
  /** Generated inputs that play without end: why (the source without a duration), for the refusal. */
  endlessCause?: string;
  /** Sequences: the number the task starts at (-start_number); else the lowest uploaded. */
  startNumber?: number;
}

export interface PlannedOutput {
  /** Position in task.outputs. */
  index: number;
  fileName: string;
  /**
   * file: one file; numbered: one file per frame (thumb_%03d.png); segments: one file per part
   * (-f segment, out_%03d.mp4); hls/dash: a playlist or manifest with segments next to it;
   * report: -f null, the service writes the filters' report.
   */
  kind: 'file' | 'numbered' | 'segments' | 'hls' | 'dash' | 'report';
  muxer: string;
  /** The checked options (maps first), then the service's own for this kind; the runner appends the target. */
  args: string[];
  /** Most files it can write; 0 when only the run can tell (segments), then the task's total bound applies. */
  maxFiles: number;
  /** Other files it writes next to fileName, as a regular expression over names (segments, numbered frames). */
  extraFiles?: string;
  /** Segment outputs: the first part's number and the segment list's name, if the task asks for one. */
  segments?: { startNumber: number; list?: string };
  /**
   * Report outputs: the format (by the name's extension), the filter instances whose lines it
   * holds, and those filters' names (some log under their name alone: silencedetect, blackdetect).
   */
  report?: { format: 'json' | 'text'; instances: string[]; filters: string[] };
  /**
   * Set when the output has no -map, -shortest is its only bound and one of its streams may play
   * without end: whether ffmpeg's own choice of streams holds one that ends is checked once the
   * inputs are probed (checkShortestStreams), before ffmpeg starts.
   */
  shortest?: ShortestCheck;
}

/** What checkShortestStreams needs of an output (plan/shortest.ts). */
export interface ShortestCheck {
  /** Media inputs that play without end (by index). */
  endlessInputs: number[];
  /** Stream types ffmpeg may still pick for the output (not dropped, not an endless graph's). */
  types: Array<'video' | 'audio'>;
  /** Why the output may never end, for the refusal. */
  cause: string;
}

export interface TaskPlan {
  version: number;
  inputs: PlannedInput[];
  /** The task's filter_complex, checked and in canonical form. */
  filterComplex?: string;
  outputs: PlannedOutput[];
  /** Where the outputs are stored (an existing directory of the account). */
  outputDirId?: string;
  /** Most files the task can write, for the runner's watch (at most the spec's 1,000). */
  maxFiles: number;
}
