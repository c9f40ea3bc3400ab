// What the policy decides about each entry of the FFmpeg catalogue (a filter, encoder, decoder,
// muxer, demuxer or bitstream filter) and about each of its options. The rule: refuse only what
// reads or writes files the service did not stage, opens the network, loads code or devices, or
// has no bound; allow everything else, with a scoped value where an option needs one. A refusal
// names the reason and, where there is one, the allowed way to get the same result.

/** What a side file is to the filter that reads it. */
export type SideKind = 'font' | 'text' | 'subtitles' | 'data';

/** How one option's value is judged. */
export type OptionVerdict =
  /**
   * Checked against its catalogue type and range: numbers (FFmpeg's spellings: 48k, 0x10, 1e3,
   * 30000/1001...), flags, named constants, booleans, sizes, rates, durations, colours, pixel and
   * sample formats, channel layouts. The default for every option that is not a string,
   * dictionary or binary.
   */
  | 'allow'
  /** Free text FFmpeg never opens: written into the output, drawn, or matched (titles, drawtext text). Control characters are refused. */
  | 'text'
  /** An FFmpeg expression (libavutil/eval), evaluated once or per frame (overlay x, select expr, geq). while(), root() and taylor() are refused. */
  | 'expr'
  /**
   * Names, lists or a small syntax of their own that never name a file (a list of pixel formats,
   * channel maps, 'c0|c1', sub-option strings of known keys): refused if it looks like a path,
   * URL or protocol.
   */
  | 'token'
  /** A width or height: a number up to 8,192 or an expression whose largest value is bounded (filtergraph/dimension.ts). */
  | 'dimension'
  /** A frame rate written as text (fps=30, ntsc, 30000/1001), up to the frame-rate limit. */
  | 'rate'
  /** A frame size written as text (640x480, hd720), each side up to 8,192. */
  | 'size'
  /**
   * A fontconfig family name or pattern ('DejaVu Sans', 'Sans:style=Bold'): matched only against
   * the fonts the service provides (fontconfig inside the sandbox sees no other directory).
   */
  | 'font'
  /**
   * Names a task input used as a side file, not as a media input: a font, a text file, a subtitle
   * file, or another data file the filter reads (a LUT, a curves file, an image mask). The service
   * stages it and passes its staged path; any other path is refused.
   */
  | { input: SideKind }
  /**
   * key=value pairs joined by ':' (x264-params and the like): a key listed here is refused with its
   * reason (it names a file); other keys pass with values checked like 'token'.
   */
  | { params: Readonly<Record<string, string>> }
  /** A number within a tighter range than FFmpeg's own (a resource bound); `why` ends "at most N <why>". */
  | { min?: number; max?: number; why: string }
  /** Set by the service (to the value shown, or one it derives); a task may not set it. */
  | { pinned: string; why: string }
  /** Refused: `refuse` ends "Option 'x' of filter 'y' is not allowed: <refuse>". */
  | { refuse: string };

export interface AllowedEntry {
  verdict: 'allow';
  /**
   * The options judged one by one. An option not named here takes its type's default: 'allow'
   * for numbers, flags, constants, sizes and the like; string, dict and binary options must be
   * named (a test fails for one that is not, and the runtime refuses it).
   */
  options?: Readonly<Record<string, OptionVerdict>>;
  /** Why it is allowed, where that is not obvious (shown in the generated policy). */
  note?: string;
}

export interface RefusedEntry {
  verdict: 'refuse';
  /** Ends "Filter 'movie' is not allowed: <reason>": "it opens files or URLs". */
  reason: string;
  /** The allowed way to get the same result, if any: "add the file to task.inputs and use [1:v]". */
  instead?: string;
}

export type EntryVerdict = AllowedEntry | RefusedEntry;

/** One verdict per catalogue entry of a kind, keyed by the catalogue's name. */
export type Verdicts = Readonly<Record<string, EntryVerdict>>;

/** The generic option tables (shared-options.ts) an entry's options may come from. */
export type SharedTable = 'AVCodecContext' | 'AVFormatContext' | 'SWScaler' | 'SWResampler' | 'AVFilter';

/** Shorthands for the verdict tables. */
export const allow = (options?: AllowedEntry['options'], note?: string): AllowedEntry => ({
  verdict: 'allow',
  ...(options ? { options } : {}),
  ...(note ? { note } : {}),
});
export const refuse = (reason: string, instead?: string): RefusedEntry => {
  const alternative = instead ?? INSTEAD[reason];
  return { verdict: 'refuse', reason, ...(alternative ? { instead: alternative } : {}) };
};
export const refuseOption = (reason: string, instead?: string): OptionVerdict => {
  const alternative = instead ?? OPTION_INSTEAD[reason] ?? INSTEAD[reason];
  return { refuse: alternative ? `${reason}; instead, ${alternative}` : reason };
};
export const pinned = (value: string, why: string): OptionVerdict => ({ pinned: value, why });

/** Common reasons, worded once. */
export const REASONS = {
  readsFiles: 'it reads files the service did not stage',
  writesFiles: 'it writes files outside the task outputs',
  opensNetwork: 'it opens network connections',
  loadsCode: 'it loads external code (plugins)',
  loadsModel: 'it loads a model file',
  hardware: 'it needs a hardware device, which the service does not have',
  device: 'it is a capture or playback device',
  textArt: 'it renders arbitrary bytes as text on a picture (the known file-leak chains end with one)',
  references: 'it reads a list of other files or URLs',
  notMedia: 'it is not a media format',
  internal: "it is internal to ffmpeg's filter graphs",
  remoteCommands: 'it takes commands from the network',
} as const;

/** Common reasons for refusing one option of an allowed entry. */
export const OPTION_REASONS = {
  writesFile: 'it writes a file',
  namesFiles: "output file names are set by the service, derived from the output's name",
  speechModels: 'it reads speech models of the machine, not of the task',
  fontsDir: "fonts come from the service's font set (and fontfile= names an uploaded one)",
  protocols: 'protocols are fixed by the service',
} as const;

/** The allowed way to the same result, for refusals whose table gives none of its own. */
const INSTEAD: Partial<Record<string, string>> = {
  [REASONS.hardware]:
    "use the software equivalent (libx264, libx265, libvpx-vp9 or libsvtav1 to encode; the codec's own decoder; scale, overlay, transpose and the like to filter)",
  [REASONS.device]: 'record to a file, upload it, and give it as an input',
  [REASONS.opensNetwork]:
    "give a public HTTPS URL as an input's file_path (the service fetches it), or upload the file; results are downloaded through their signed URLs",
  [REASONS.textArt]: 'to put text on a picture, burn in a subtitle file (subtitles=subs.srt) or draw it (drawtext=textfile=notes.txt)',
  [REASONS.loadsModel]: 'use a filter that needs no model: afftdn or anlmdn to denoise audio, scale (flags=lanczos) to upscale',
  [REASONS.loadsCode]: 'use the built-in filters (equalizer, afftdn, eq, curves, lut3d with an uploaded .cube file...)',
  [REASONS.internal]: 'nothing to add: ffmpeg puts it in every graph itself',
  [REASONS.remoteCommands]: 'give each filter the options it needs, or use timeline editing (enable=)',
};

/** The same for options refused on their own (the filter or format stays allowed). */
const OPTION_INSTEAD: Partial<Record<string, string>> = {
  [OPTION_REASONS.writesFile]:
    'leave it out: what the filter logs comes back in the report of an analysis output (-f null, docs/ffmpeg-policy.md#analysis-runs)',
  [OPTION_REASONS.namesFiles]: 'name the output in task.outputs[i].file; the service names the files it writes after it',
  [OPTION_REASONS.speechModels]: 'leave them out: asr then uses the models installed with FFmpeg',
  [OPTION_REASONS.fontsDir]:
    "name a font of the service's set (force_style='FontName=DejaVu Sans' for subtitles), or upload one and name it with fontfile=",
  [OPTION_REASONS.protocols]: 'leave it out',
};
