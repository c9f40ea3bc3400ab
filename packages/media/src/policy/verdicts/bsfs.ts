// Every bitstream filter of the FFmpeg build in use, judged (packages/media/policy/ffmpeg-catalogue.json).
// A bitstream filter rewrites packets in memory and opens nothing: all are allowed; their
// string options are expressions or lists.
import { allow, type Verdicts } from './types.js';

/** Allowed as they are: no string option, nothing read, written or opened beyond the task's own streams. */
const PLAIN = [
  'aac_adtstoasc',
  'av1_frame_merge',
  'av1_frame_split',
  'av1_metadata',
  'chomp',
  'dca_core',
  'dump_extra',
  'dv_error_marker',
  'eac3_core',
  'extract_extradata',
  'h264_mp4toannexb',
  'h264_redundant_pps',
  'hapqa_extract',
  'hevc_metadata',
  'hevc_mp4toannexb',
  'imxdump',
  'mjpeg2jpeg',
  'mjpegadump',
  'mov2textsub',
  'mp3decomp',
  'mpeg2_metadata',
  'mpeg4_unpack_bframes',
  'null',
  'opus_metadata',
  'pcm_rechunk',
  'pgs_frame_merge',
  'prores_metadata',
  'remove_extra',
  'text2movsub',
  'trace_headers',
  'truehd_core',
  'vp9_metadata',
  'vp9_raw_reorder',
  'vp9_superframe',
  'vp9_superframe_split',
];

export const BSF_VERDICTS: Verdicts = {
  ...Object.fromEntries(PLAIN.map((n) => [n, allow()])),

  // Allowed, each string option judged.
  filter_units: allow({ pass_types: 'token', remove_types: 'token' }),
  h264_metadata: allow({ sei_user_data: 'text' }),
  noise: allow({ amount: 'expr', drop: 'expr' }),
  setts: allow({ ts: 'expr', pts: 'expr', dts: 'expr', duration: 'expr' }),
};
