// The shape of packages/media/policy/ffmpeg-catalogue.json (written by catalogue/generate.mjs from
// the FFmpeg build in use): what each filter, codec and format offers, with its AVOptions.

/** AVOption types as libavutil names them (AV_OPT_TYPE_*, lower case). */
export type AvOptionType =
  | 'flags'
  | 'int'
  | 'int64'
  | 'uint64'
  | 'double'
  | 'float'
  | 'string'
  | 'rational'
  | 'binary'
  | 'dict'
  | 'bool'
  | 'image_size'
  | 'pix_fmt'
  | 'sample_fmt'
  | 'video_rate'
  | 'duration'
  | 'color'
  | 'channel_layout'
  | 'chlayout';

export interface AvConst {
  name: string;
  /** A number, or for string options the text the constant stands for. */
  value: number | string | null;
  help?: string;
}

export interface AvOption {
  name: string;
  type: AvOptionType;
  help?: string;
  /** AV_OPT_FLAG_* letters: E encoding, D decoding, F filtering, V video, A audio, S subtitle, X export, R read-only, B bsf, T runtime, P deprecated. */
  flags: string;
  min: number;
  max: number;
  default: number | string | null;
  unit?: string;
  consts?: AvConst[];
  /** An earlier option of the same table stored in the same place: another name for it. */
  alias_of?: string;
}

export interface CataloguePad {
  name: string;
  type: 'video' | 'audio' | 'subtitle' | 'data' | 'attachment' | 'unknown';
}

export interface CatalogueFilter {
  description: string;
  inputs: CataloguePad[];
  outputs: CataloguePad[];
  flags: Array<'dynamic_inputs' | 'dynamic_outputs' | 'slice_threads' | 'timeline' | 'metadata_only'>;
  options: AvOption[];
  /** The options unnamed values fill, in order (libavfilter's process_options). */
  shorthand: string[];
}

export type MediaKind = 'video' | 'audio' | 'subtitle' | 'data' | 'attachment' | 'unknown';

export interface CatalogueCodec {
  long_name: string;
  type: MediaKind;
  /** The codec (descriptor) name it encodes or decodes. */
  codec: string;
  /** Set for wrappers of outside implementations: 'cuvid', 'v4l2m2m', 'mediacodec', 'amf', ... */
  wrapper?: string;
  capabilities: string[];
  pix_fmts?: string[];
  options: AvOption[];
}

export interface CatalogueFormat {
  long_name: string;
  /** Comma-separated file extensions. */
  extensions?: string;
  mime_type?: string;
  flags: string[];
  options: AvOption[];
}

export interface CatalogueMuxer extends CatalogueFormat {
  video_codec: string | null;
  audio_codec: string | null;
  subtitle_codec: string | null;
  /** The encoder ffmpeg uses for that stream type when the task names none. */
  video_encoder: string | null;
  audio_encoder: string | null;
  subtitle_encoder: string | null;
}

export interface CatalogueBsf {
  codecs: string[];
  options: AvOption[];
}

export interface CatalogueDescriptor {
  type: MediaKind;
  /** What `-c:v <codec name>` selects when no encoder has that name. */
  encoder: string | null;
  decoder: string | null;
}

export interface Catalogue {
  /** `ffmpeg -version`'s first line. */
  ffmpeg: string;
  versions: Record<string, string>;
  /** ffmpeg's own command-line options (name -> the `ffmpeg -h full` sections that list it). */
  cli: Record<string, string[]>;
  /** Option tables every codec, format, scaler, resampler or filter instance has. */
  shared: { AVCodecContext: AvOption[]; AVFormatContext: AvOption[]; SWScaler: AvOption[]; SWResampler: AvOption[]; AVFilter: AvOption[] };
  filters: Record<string, CatalogueFilter>;
  encoders: Record<string, CatalogueCodec>;
  decoders: Record<string, CatalogueCodec>;
  muxers: Record<string, CatalogueMuxer>;
  /** Keyed by ffmpeg's full name ('mov,mp4,m4a,3gp,3g2,mj2'). */
  demuxers: Record<string, CatalogueFormat>;
  bsfs: Record<string, CatalogueBsf>;
  codecs: Record<string, CatalogueDescriptor>;
  /** What ffmpeg picks for an output name with that extension. */
  extension_muxers: Record<string, { muxer: string; video_encoder?: string }>;
  colors: string[];
  pix_fmts: string[];
  sample_fmts: string[];
  channel_layouts: string[];
  channels: string[];
}
