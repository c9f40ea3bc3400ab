// Prints, as one JSON document on stdout, everything the FFmpeg libraries of this machine offer:
// every filter, encoder, decoder, muxer, demuxer and bitstream filter with its private AVOptions
// (type, range, default, flags, named constants, aliases, the order filters fill unnamed values
// in), and the shared option tables (AVCodecContext, AVFormatContext, swscale, swresample,
// AVFilterContext). generate.mjs turns it into packages/media/policy/ffmpeg-catalogue.json, the
// data the task policy judges against. Built against the libav*-dev headers of the same build.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavdevice/avdevice.h>
#include <libavfilter/avfilter.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/parseutils.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

static int first;

static void sep(void) {
  if (!first) putchar(',');
  first = 0;
}

static void str(const char *s) {
  if (!s) {
    fputs("null", stdout);
    return;
  }
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') printf("\\%c", *p);
    else if (*p == '\n') fputs("\\n", stdout);
    else if (*p == '\t') fputs("\\t", stdout);
    else if (*p < 0x20) printf("\\u%04x", *p);
    else putchar(*p);
  }
  putchar('"');
}

static void key(const char *k) {
  sep();
  str(k);
  putchar(':');
}

static void num(double d) {
  if (d != d) fputs("null", stdout);
  else if (d >= 1e300) fputs("1e300", stdout);
  else if (d <= -1e300) fputs("-1e300", stdout);
  else printf("%.17g", d);
}

static const char *type_name(enum AVOptionType t) {
  switch (t) {
    case AV_OPT_TYPE_FLAGS: return "flags";
    case AV_OPT_TYPE_INT: return "int";
    case AV_OPT_TYPE_INT64: return "int64";
    case AV_OPT_TYPE_DOUBLE: return "double";
    case AV_OPT_TYPE_FLOAT: return "float";
    case AV_OPT_TYPE_STRING: return "string";
    case AV_OPT_TYPE_RATIONAL: return "rational";
    case AV_OPT_TYPE_BINARY: return "binary";
    case AV_OPT_TYPE_DICT: return "dict";
    case AV_OPT_TYPE_UINT64: return "uint64";
    case AV_OPT_TYPE_CONST: return "const";
    case AV_OPT_TYPE_IMAGE_SIZE: return "image_size";
    case AV_OPT_TYPE_PIXEL_FMT: return "pix_fmt";
    case AV_OPT_TYPE_SAMPLE_FMT: return "sample_fmt";
    case AV_OPT_TYPE_VIDEO_RATE: return "video_rate";
    case AV_OPT_TYPE_DURATION: return "duration";
    case AV_OPT_TYPE_COLOR: return "color";
    case AV_OPT_TYPE_CHANNEL_LAYOUT: return "channel_layout";
    case AV_OPT_TYPE_BOOL: return "bool";
    case AV_OPT_TYPE_CHLAYOUT: return "chlayout";
  }
  return "unknown";
}

// The AV_OPT_FLAG_* letters, in the order `ffmpeg -h` prints them.
static void flag_letters(int f, char *out) {
  int n = 0;
  if (f & AV_OPT_FLAG_ENCODING_PARAM) out[n++] = 'E';
  if (f & AV_OPT_FLAG_DECODING_PARAM) out[n++] = 'D';
  if (f & AV_OPT_FLAG_FILTERING_PARAM) out[n++] = 'F';
  if (f & AV_OPT_FLAG_VIDEO_PARAM) out[n++] = 'V';
  if (f & AV_OPT_FLAG_AUDIO_PARAM) out[n++] = 'A';
  if (f & AV_OPT_FLAG_SUBTITLE_PARAM) out[n++] = 'S';
  if (f & AV_OPT_FLAG_EXPORT) out[n++] = 'X';
  if (f & AV_OPT_FLAG_READONLY) out[n++] = 'R';
  if (f & AV_OPT_FLAG_BSF_PARAM) out[n++] = 'B';
  if (f & AV_OPT_FLAG_RUNTIME_PARAM) out[n++] = 'T';
  if (f & AV_OPT_FLAG_DEPRECATED) out[n++] = 'P';
  out[n] = 0;
}

static void default_value(const AVOption *o) {
  switch (o->type) {
    case AV_OPT_TYPE_FLAGS:
    case AV_OPT_TYPE_INT:
    case AV_OPT_TYPE_INT64:
    case AV_OPT_TYPE_UINT64:
    case AV_OPT_TYPE_BOOL:
    case AV_OPT_TYPE_DURATION:
    case AV_OPT_TYPE_PIXEL_FMT:
    case AV_OPT_TYPE_SAMPLE_FMT:
    case AV_OPT_TYPE_CHANNEL_LAYOUT:
    case AV_OPT_TYPE_CONST:
      printf("%" PRId64, o->default_val.i64);
      break;
    case AV_OPT_TYPE_DOUBLE:
    case AV_OPT_TYPE_FLOAT:
    case AV_OPT_TYPE_RATIONAL:
      num(o->default_val.dbl);
      break;
    default:
      str(o->default_val.str);
  }
}

/**
 * One option table. Named constants are listed under the options of their unit; an option that
 * shares the storage of an earlier one is an alias (alias_of). `shorthand` receives the
 * names a filter fills unnamed values into, in order: libavfilter's process_options skips
 * constants and options at the offset of the one before.
 */
static void options(const AVClass *cls, int want_shorthand) {
  putchar('[');
  int firstopt = 1;
  if (cls && cls->option) {
    for (const AVOption *o = cls->option; o->name; o++) {
      if (o->type == AV_OPT_TYPE_CONST) continue;
      if (!firstopt) putchar(',');
      firstopt = 0;
      first = 1;
      putchar('{');
      key("name"), str(o->name);
      key("type"), str(type_name(o->type));
      if (o->help) key("help"), str(o->help);
      char letters[16];
      flag_letters(o->flags, letters);
      key("flags"), str(letters);
      key("min"), num(o->min);
      key("max"), num(o->max);
      key("default"), default_value(o);
      if (o->unit) key("unit"), str(o->unit);
      // The first earlier option stored in the same place (offset 0 holds the AVClass pointer,
      // so an option there stores nothing and aliases nothing).
      for (const AVOption *a = cls->option; a != o && o->offset != 0; a++) {
        if (a->type != AV_OPT_TYPE_CONST && a->offset == o->offset) {
          key("alias_of"), str(a->name);
          break;
        }
      }
      if (o->unit) {
        key("consts");
        putchar('[');
        int firstc = 1;
        for (const AVOption *c = cls->option; c->name; c++) {
          if (c->type != AV_OPT_TYPE_CONST || !c->unit || strcmp(c->unit, o->unit)) continue;
          if (!firstc) putchar(',');
          firstc = 0;
          first = 1;
          putchar('{');
          key("name"), str(c->name);
          // A constant's value is stored as its option's type stores one.
          key("value");
          if (o->type == AV_OPT_TYPE_STRING) str(c->default_val.str);
          else if (o->type == AV_OPT_TYPE_DOUBLE || o->type == AV_OPT_TYPE_FLOAT || o->type == AV_OPT_TYPE_RATIONAL) num(c->default_val.dbl);
          else printf("%" PRId64, c->default_val.i64);
          if (c->help) key("help"), str(c->help);
          putchar('}');
        }
        putchar(']');
      }
      putchar('}');
    }
  }
  putchar(']');
  if (want_shorthand) {
    printf(",\"shorthand\":[");
    int firsts = 1;
    int offset = -1;
    if (cls && cls->option) {
      for (const AVOption *o = cls->option; o->name; o++) {
        if (o->type == AV_OPT_TYPE_CONST || o->offset == offset) continue;
        offset = o->offset;
        if (!firsts) putchar(',');
        firsts = 0;
        str(o->name);
      }
    }
    putchar(']');
  }
  first = 0;
}

static const char *media_name(enum AVMediaType t) {
  const char *n = av_get_media_type_string(t);
  return n ? n : "unknown";
}

static void pads(const AVFilter *f, int is_output) {
  unsigned count = avfilter_filter_pad_count(f, is_output);
  const AVFilterPad *p = is_output ? f->outputs : f->inputs;
  putchar('[');
  for (unsigned i = 0; i < count; i++) {
    if (i) putchar(',');
    first = 1;
    putchar('{');
    key("name"), str(avfilter_pad_get_name(p, i));
    key("type"), str(media_name(avfilter_pad_get_type(p, i)));
    putchar('}');
  }
  putchar(']');
  first = 0;
}

static void filters(void) {
  printf("\"filters\":{");
  void *it = NULL;
  const AVFilter *f;
  int firstf = 1;
  while ((f = av_filter_iterate(&it))) {
    if (!firstf) putchar(',');
    firstf = 0;
    str(f->name);
    printf(":{");
    first = 1;
    key("description"), str(f->description);
    key("inputs"), pads(f, 0);
    key("outputs"), pads(f, 1);
    key("flags");
    printf("[");
    int fl = 0;
#define FLAG(bit, name) if (f->flags & (bit)) printf("%s\"%s\"", fl++ ? "," : "", name)
    FLAG(AVFILTER_FLAG_DYNAMIC_INPUTS, "dynamic_inputs");
    FLAG(AVFILTER_FLAG_DYNAMIC_OUTPUTS, "dynamic_outputs");
    FLAG(AVFILTER_FLAG_SLICE_THREADS, "slice_threads");
    FLAG(AVFILTER_FLAG_SUPPORT_TIMELINE_GENERIC, "timeline");
    FLAG(AVFILTER_FLAG_SUPPORT_TIMELINE_INTERNAL, "timeline");
    FLAG(AVFILTER_FLAG_METADATA_ONLY, "metadata_only");
#undef FLAG
    printf("]");
    key("options"), options(f->priv_class, 1);
    putchar('}');
  }
  putchar('}');
}

static void codec_caps(const AVCodec *c) {
  printf("[");
  int fl = 0;
#define CAP(bit, name) if (c->capabilities & (bit)) printf("%s\"%s\"", fl++ ? "," : "", name)
  CAP(AV_CODEC_CAP_EXPERIMENTAL, "experimental");
  CAP(AV_CODEC_CAP_HARDWARE, "hardware");
  CAP(AV_CODEC_CAP_HYBRID, "hybrid");
  CAP(AV_CODEC_CAP_DELAY, "delay");
  CAP(AV_CODEC_CAP_FRAME_THREADS, "frame_threads");
  CAP(AV_CODEC_CAP_SLICE_THREADS, "slice_threads");
  CAP(AV_CODEC_CAP_OTHER_THREADS, "other_threads");
  CAP(AV_CODEC_CAP_PARAM_CHANGE, "param_change");
  CAP(AV_CODEC_CAP_VARIABLE_FRAME_SIZE, "variable_frame_size");
  CAP(AV_CODEC_CAP_AVOID_PROBING, "avoid_probing");
#undef CAP
  if (avcodec_get_hw_config(c, 0)) printf("%s\"hw_configs\"", fl++ ? "," : "");
  printf("]");
}

static void codecs(int encoders) {
  printf(encoders ? "\"encoders\":{" : "\"decoders\":{");
  void *it = NULL;
  const AVCodec *c;
  int firstc = 1;
  while ((c = av_codec_iterate(&it))) {
    if (encoders ? !av_codec_is_encoder(c) : !av_codec_is_decoder(c)) continue;
    if (!firstc) putchar(',');
    firstc = 0;
    str(c->name);
    printf(":{");
    first = 1;
    key("long_name"), str(c->long_name);
    key("type"), str(media_name(c->type));
    key("codec"), str(avcodec_get_name(c->id));
    if (c->wrapper_name) key("wrapper"), str(c->wrapper_name);
    key("capabilities"), codec_caps(c);
    if (c->pix_fmts) {
      key("pix_fmts");
      putchar('[');
      for (const enum AVPixelFormat *p = c->pix_fmts; *p != AV_PIX_FMT_NONE; p++) {
        if (p != c->pix_fmts) putchar(',');
        str(av_get_pix_fmt_name(*p));
      }
      putchar(']');
    }
    key("options"), options(c->priv_class, 0);
    putchar('}');
  }
  putchar('}');
}

static void format_flags(int flags) {
  printf("[");
  int fl = 0;
#define FF(bit, name) if (flags & (bit)) printf("%s\"%s\"", fl++ ? "," : "", name)
  FF(AVFMT_NOFILE, "nofile");
  FF(AVFMT_NEEDNUMBER, "neednumber");
  FF(AVFMT_SHOW_IDS, "show_ids");
  FF(AVFMT_GLOBALHEADER, "globalheader");
  FF(AVFMT_NOTIMESTAMPS, "notimestamps");
  FF(AVFMT_GENERIC_INDEX, "generic_index");
  FF(AVFMT_TS_DISCONT, "ts_discont");
  FF(AVFMT_VARIABLE_FPS, "variable_fps");
  FF(AVFMT_NODIMENSIONS, "nodimensions");
  FF(AVFMT_NOSTREAMS, "nostreams");
  FF(AVFMT_NOBINSEARCH, "nobinsearch");
  FF(AVFMT_NOGENSEARCH, "nogensearch");
  FF(AVFMT_NO_BYTE_SEEK, "no_byte_seek");
  FF(AVFMT_ALLOW_FLUSH, "allow_flush");
  FF(AVFMT_TS_NONSTRICT, "ts_nonstrict");
  FF(AVFMT_TS_NEGATIVE, "ts_negative");
  FF(AVFMT_SEEK_TO_PTS, "seek_to_pts");
#undef FF
  printf("]");
}

static const char *encoder_for(enum AVCodecID id) {
  if (id == AV_CODEC_ID_NONE) return NULL;
  const AVCodec *c = avcodec_find_encoder(id);
  return c ? c->name : NULL;
}

static void muxers(void) {
  printf("\"muxers\":{");
  void *it = NULL;
  const AVOutputFormat *f;
  int firstm = 1;
  while ((f = av_muxer_iterate(&it))) {
    if (!firstm) putchar(',');
    firstm = 0;
    str(f->name);
    printf(":{");
    first = 1;
    key("long_name"), str(f->long_name);
    if (f->extensions) key("extensions"), str(f->extensions);
    if (f->mime_type) key("mime_type"), str(f->mime_type);
    key("flags"), format_flags(f->flags);
    key("video_codec"), str(f->video_codec == AV_CODEC_ID_NONE ? NULL : avcodec_get_name(f->video_codec));
    key("audio_codec"), str(f->audio_codec == AV_CODEC_ID_NONE ? NULL : avcodec_get_name(f->audio_codec));
    key("subtitle_codec"), str(f->subtitle_codec == AV_CODEC_ID_NONE ? NULL : avcodec_get_name(f->subtitle_codec));
    key("video_encoder"), str(encoder_for(f->video_codec));
    key("audio_encoder"), str(encoder_for(f->audio_codec));
    key("subtitle_encoder"), str(encoder_for(f->subtitle_codec));
    key("options"), options(f->priv_class, 0);
    putchar('}');
  }
  putchar('}');
}

static void demuxers(void) {
  printf("\"demuxers\":{");
  void *it = NULL;
  const AVInputFormat *f;
  int firstd = 1;
  while ((f = av_demuxer_iterate(&it))) {
    if (!firstd) putchar(',');
    firstd = 0;
    str(f->name);
    printf(":{");
    first = 1;
    key("long_name"), str(f->long_name);
    if (f->extensions) key("extensions"), str(f->extensions);
    if (f->mime_type) key("mime_type"), str(f->mime_type);
    key("flags"), format_flags(f->flags);
    key("options"), options(f->priv_class, 0);
    putchar('}');
  }
  putchar('}');
}

static void bsfs(void) {
  printf("\"bsfs\":{");
  void *it = NULL;
  const AVBitStreamFilter *b;
  int firstb = 1;
  while ((b = av_bsf_iterate(&it))) {
    if (!firstb) putchar(',');
    firstb = 0;
    str(b->name);
    printf(":{");
    first = 1;
    key("codecs");
    putchar('[');
    if (b->codec_ids)
      for (const enum AVCodecID *id = b->codec_ids; *id != AV_CODEC_ID_NONE; id++) {
        if (id != b->codec_ids) putchar(',');
        str(avcodec_get_name(*id));
      }
    putchar(']');
    key("options"), options(b->priv_class, 0);
    putchar('}');
  }
  putchar('}');
}

/** Codec descriptors: what `-c:v h264` means when no encoder has that name. */
static void descriptors(void) {
  printf("\"codecs\":{");
  const AVCodecDescriptor *d = NULL;
  int firstd = 1;
  while ((d = avcodec_descriptor_next(d))) {
    if (!firstd) putchar(',');
    firstd = 0;
    str(d->name);
    printf(":{");
    first = 1;
    key("type"), str(media_name(d->type));
    const AVCodec *e = avcodec_find_encoder(d->id), *dec = avcodec_find_decoder(d->id);
    key("encoder"), str(e ? e->name : NULL);
    key("decoder"), str(dec ? dec->name : NULL);
    putchar('}');
  }
  putchar('}');
}

/** What ffmpeg picks for an output file name: the muxer, and for image2 the codec, by extension. */
static void by_extension(void) {
  printf("\"extension_muxers\":{");
  void *it = NULL;
  const AVOutputFormat *f;
  int firste = 1;
  char seen[65536] = ",";
  while ((f = av_muxer_iterate(&it))) {
    if (!f->extensions) continue;
    char exts[512];
    snprintf(exts, sizeof exts, "%s", f->extensions);
    for (char *e = strtok(exts, ", "); e; e = strtok(NULL, ", ")) {
      char probe[600];
      snprintf(probe, sizeof probe, ",%s,", e);
      if (strstr(seen, probe)) continue;
      strncat(seen, e, sizeof seen - strlen(seen) - 2);
      strcat(seen, ",");
      char name[600];
      snprintf(name, sizeof name, "x.%s", e);
      const AVOutputFormat *g = av_guess_format(NULL, name, NULL);
      if (!g) continue;
      if (!firste) putchar(',');
      firste = 0;
      str(e);
      printf(":{");
      first = 1;
      key("muxer"), str(g->name);
      enum AVCodecID v = av_guess_codec(g, NULL, name, NULL, AVMEDIA_TYPE_VIDEO);
      const char *venc = encoder_for(v);
      if (venc) key("video_encoder"), str(venc);
      putchar('}');
    }
  }
  putchar('}');
}

/** The names option values may use: colours, pixel and sample formats, channel layouts. */
static void names(void) {
  printf("\"colors\":[");
  const char *n;
  for (int i = 0; (n = av_get_known_color_name(i, NULL)); i++) {
    if (i) putchar(',');
    str(n);
  }
  printf("],\"pix_fmts\":[");
  const AVPixFmtDescriptor *d = NULL;
  int firstp = 1;
  while ((d = av_pix_fmt_desc_next(d))) {
    if (!firstp) putchar(',');
    firstp = 0;
    str(d->name);
  }
  printf("],\"sample_fmts\":[");
  for (int i = 0; i < AV_SAMPLE_FMT_NB; i++) {
    if (i) putchar(',');
    str(av_get_sample_fmt_name(i));
  }
  printf("],\"channel_layouts\":[");
  void *it = NULL;
  const AVChannelLayout *l;
  int firstl = 1;
  while ((l = av_channel_layout_standard(&it))) {
    char buf[128];
    if (av_channel_layout_describe(l, buf, sizeof buf) < 0) continue;
    if (!firstl) putchar(',');
    firstl = 0;
    str(buf);
  }
  printf("],\"channels\":[");
  int firstc = 1;
  for (int c = 0; c < 64; c++) {
    char buf[64];
    if (av_channel_name(buf, sizeof buf, c) < 0 || !strncmp(buf, "USR", 3)) continue;
    if (!firstc) putchar(',');
    firstc = 0;
    str(buf);
  }
  printf("]");
}

static void shared(const char *name, const AVClass *cls) {
  str(name);
  putchar(':');
  options(cls, 0);
}

int main(void) {
  avdevice_register_all();
  printf("{\"versions\":{");
  printf("\"libavutil\":\"%s\",", AV_STRINGIFY(LIBAVUTIL_VERSION));
  printf("\"libavcodec\":\"%s\",", AV_STRINGIFY(LIBAVCODEC_VERSION));
  printf("\"libavformat\":\"%s\",", AV_STRINGIFY(LIBAVFORMAT_VERSION));
  printf("\"libavfilter\":\"%s\",", AV_STRINGIFY(LIBAVFILTER_VERSION));
  printf("\"runtime_avfilter\":\"%u.%u.%u\"},", avfilter_version() >> 16, (avfilter_version() >> 8) & 0xff, avfilter_version() & 0xff);
  printf("\"shared\":{");
  shared("AVCodecContext", avcodec_get_class());
  putchar(',');
  shared("AVFormatContext", avformat_get_class());
  putchar(',');
  shared("SWScaler", sws_get_class());
  putchar(',');
  shared("SWResampler", swr_get_class());
  putchar(',');
  shared("AVFilter", avfilter_get_class());
  printf("},");
  filters();
  putchar(',');
  codecs(1);
  putchar(',');
  codecs(0);
  putchar(',');
  muxers();
  putchar(',');
  demuxers();
  putchar(',');
  bsfs();
  putchar(',');
  descriptors();
  putchar(',');
  by_extension();
  putchar(',');
  names();
  printf("}\n");
  return 0;
}
