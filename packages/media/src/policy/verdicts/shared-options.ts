// The option tables every encoder, decoder, muxer, demuxer and filter shares, judged
// (AVCodecContext, AVFormatContext, the scaler, the resampler and AVFilter's generic options).
// Numbers and flags are allowed within FFmpeg's ranges; a few get a resource bound; the
// whitelists that keep inputs to staged files are the service's to set.
import { pinned, type OptionVerdict, type SharedTable } from './types.js';

export const SHARED_OPTION_VERDICTS: Readonly<Record<SharedTable, Readonly<Record<string, OptionVerdict>>>> = {
  AVCodecContext: {
    sub_charenc: 'token',
    dump_separator: 'text',
    codec_whitelist: 'token',
    threads: { min: 0, max: 16, why: 'threads (0 picks one per core)' },
  },
  AVFormatContext: {
    cryptokey: 'token',
    dump_separator: 'text',
    codec_whitelist: 'token',
    format_whitelist: pinned('', 'the formats a task may read are fixed by the service'),
    protocol_whitelist: pinned('file', 'a task reads only its staged files'),
    protocol_blacklist: pinned('', 'a task reads only its staged files'),
    probesize: { min: 32, max: 50000000, why: 'bytes' },
    analyzeduration: { min: 0, max: 60000000, why: 'microseconds (60 s)' },
  },
  SWScaler: {},
  SWResampler: {},
  AVFilter: {
    enable: 'expr',
  },
};
