// One input of a task: where it comes from, how the service stages and opens it (one file, an
// image sequence, a concat list, or a side file a filter reads), and its checked options.
import { CATALOGUE } from '../catalogue/catalogue.js';
import { demuxer as demuxerEntry, type StreamType } from '../catalogue/lookup.js';
import { extensionOf } from '../file-name.js';
import { isNumberedPattern } from '../numbered-pattern.js';
import { checkCliValue } from '../options/cli-value.js';
import { checkOptionValue } from '../options/check-value.js';
import { refuseNoEffect, resolveAvOption, tokenizeOptions, type AvScope } from '../options/read-options.js';
import { refuse, show } from '../refuse.js';
import { specifierMedia } from '../stream-spec.js';
import { VERDICTS } from '../verdicts/index.js';
import type { NamedSource } from './side-files.js';
import type { PlannedInput, SideUse } from './types.js';

/** Demuxers whose input can be a numbered image sequence: image2, by the file name's extension. */
const IMAGE2 = 'image2';
const CONCAT = 'concat';
/** The demuxer of generated inputs (plan/generated.ts): never found by a probe. */
export const LAVFI = 'lavfi';

/** The demuxers the probe may choose from (every allowed one but lavfi), keyed by full name. */
export const ALLOWED_DEMUXERS: readonly string[] = Object.keys(CATALOGUE.demuxers).filter(
  (n) => n !== LAVFI && VERDICTS.demuxer[n]?.verdict === 'allow',
);

/** The format an input's options name with -f, if any (the last one, as ffmpeg reads them). */
export function formatOf(options: readonly string[]): string | undefined {
  let format: string | undefined;
  for (let i = 0; i + 1 < options.length; i++) if (options[i] === '-f') format = options[++i];
  return format;
}

/** Image file extensions of image2 (the demuxer has no list of its own; the muxer's is the same set of image codecs). */
export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set((CATALOGUE.muxers[IMAGE2]?.extensions ?? '').split(',').filter(Boolean));

/** What kind of input a file_path and its options make, before the options are checked in full. */
export function inputKind(source: NamedSource, options: readonly string[]): 'media' | 'sequence' | 'concat' {
  const format = formatOf(options);
  if (format === CONCAT) {
    if (source.source.kind !== 'uploaded')
      refuse(`task.inputs[${source.index}] is a concat list (-f concat) and must be an uploaded file of the task's directory, not a URL`);
    return 'concat';
  }
  if (source.source.kind === 'uploaded' && isNumberedPattern(source.name)) {
    if (!IMAGE_EXTENSIONS.has(extensionOf(source.name))) {
      refuse(
        `task.inputs[${source.index}].file_path ${show(source.filePath)} is a numbered pattern; patterns name image sequences, so the name must end with an image extension such as .png or .jpg`,
      );
    }
    if (format !== undefined && format !== IMAGE2)
      refuse(`task.inputs[${source.index}] is an image sequence (its name holds %d); leave out -f or give -f image2`);
    return 'sequence';
  }
  return 'media';
}

export function planSideInput(source: NamedSource, options: readonly string[], use: SideUse): PlannedInput {
  if (options.length > 0)
    refuse(
      `task.inputs[${source.index}] is read as a ${use === 'subtitles' ? 'subtitle' : use} file by a filter or -attach and takes no options`,
    );
  return { index: source.index, source: source.source, kind: 'side', args: [], demuxerOptions: [], probeArgs: [], endless: false };
}

const STREAM_TYPES: readonly StreamType[] = ['video', 'audio', 'subtitle', 'data'];

/**
 * -readrate below 1 reads slower than real time: -readrate 0.001 makes a 10 s input hold a worker
 * slot for the whole job time limit while ffmpeg idles (issue 39). 0 is ffmpeg's "not paced".
 */
function checkReadRate(token: string, value: string, rate: number): void {
  if (rate > 0 && rate < 1) {
    refuse(
      `Value ${show(value)} of ${show(token)} reads the input slower than real time, which holds a worker slot while the run makes almost no headway: use -re or -readrate 1 (real time) or more, or leave it out to read at full speed`,
    );
  }
}

/** -re paces by the scaled timestamps: -itsscale 1000 with -re reads as -readrate 0.001 would. */
function checkScaledPacing(rate: number, scale: number): void {
  if (rate > 0 && rate / scale < 1) {
    refuse(
      `Option '-itsscale' ${scale} with ${rate === 1 ? '-re' : `-readrate ${rate}`} reads the input slower than real time (as -readrate ${Number((rate / scale).toPrecision(3))} would), which holds a worker slot while the run makes almost no headway: leave out -re, or give -readrate ${scale} or more`,
    );
  }
}

/**
 * Plans a media, sequence, concat or generated input: checks its options and notes whether it
 * plays without end (`generatedEndless`: why a generated input's graph does, unless -t bounds it).
 */
export function planMediaInput(
  source: NamedSource,
  options: readonly string[],
  kind: 'media' | 'sequence' | 'concat' | 'generated',
  inputCount: number,
  generatedEndless?: string,
): PlannedInput {
  const where = `task.inputs[${source.index}].options`;
  const raw = tokenizeOptions(options, where);
  let demuxer: string | undefined = kind === 'sequence' ? IMAGE2 : kind === 'concat' ? CONCAT : undefined;
  const decoders: Record<StreamType, string[]> = { video: [], audio: [], subtitle: [], data: [] };
  for (const o of raw) {
    if (o.cli?.rule.name === 'f' && !o.cli.rule.refuse) {
      const f = checkCliValue(o, { side: 'input', where, inputCount }).format!;
      if ((f === LAVFI) !== (kind === 'generated')) refuse(`task.inputs[${source.index}].options name more than one format (-f): give one`);
      if (kind === 'media' && (f === IMAGE2 || f === CONCAT)) {
        refuse(
          `task.inputs[${source.index}]: -f ${o.value} is for ${f === IMAGE2 ? 'image sequences: name the files with a number pattern such as img_%03d.png' : 'uploaded concat lists'}`,
        );
      }
      demuxer = f;
    }
    if (o.cli && o.name === 'c' && o.value !== undefined) {
      const media = o.spec === null ? undefined : specifierMedia(o.spec);
      const chosen = checkCliValue(o, { side: 'input', where, inputCount }).codec;
      if (chosen && chosen !== 'copy') for (const t of media ? [media] : STREAM_TYPES) decoders[t].push(chosen.name);
    }
  }
  const formats = demuxer ? [demuxer] : ALLOWED_DEMUXERS;
  const scope: AvScope = {
    side: 'input',
    codecs: decoders,
    formats,
    describe: `input ${source.index} (${demuxer ? `${demuxer.split(',')[0]} demuxer` : 'whatever format the file turns out to be'})`,
  };
  const args: string[] = [];
  const demuxerOptions: string[] = [];
  const probeArgs: string[] = [];
  let loops = false;
  let bounded = false;
  // As ffmpeg reads them: -readrate wins, else -re is -readrate 1; -itsscale per stream, the largest.
  const pacing = { readrate: 0, re: false, scale: 1 };
  let startNumber: number | undefined;
  for (const o of raw) {
    if (o.cli) {
      const rule = o.cli.rule;
      if (rule.refuse)
        refuse(
          `Option ${show(o.token)} is not allowed: ${rule.refuse.reason}${rule.refuse.instead ? `; instead, ${rule.refuse.instead}` : ''}`,
        );
      if (rule.where === 'output')
        refuse(`Option ${show(o.token)} is an output option: put it in the output's options (task.outputs[i].options)`);
      if (rule.ignored || rule.name === 'f') continue;
      const checked = checkCliValue(o, { side: 'input', where, inputCount });
      args.push(o.token);
      if (o.value !== undefined) args.push(checked.value);
      if (o.name === 'readrate') checkReadRate(o.token, o.value!, checked.number!);
      if (o.name === 'readrate') pacing.readrate = checked.number!;
      if (o.name === 're') pacing.re = !o.cli.negated;
      if (o.name === 'itsscale') pacing.scale = Math.max(pacing.scale, checked.number!);
      if (o.name === 'stream_loop' && checked.number === -1) loops = true;
      if ((o.name === 't' || o.name === 'to') && !o.cli.negated) bounded = true;
      continue;
    }
    if (kind === 'sequence' && o.name === 'start_number') {
      // The service stages the files from this number up to the first gap, and passes it on.
      if (!/^\d{1,9}$/.test(o.value ?? ''))
        refuse(`Value ${show(o.value ?? '')} of option ${show(o.token)} must be a whole number from 0 to 999999999`);
      startNumber = Number(o.value);
      continue;
    }
    if (kind === 'sequence' && o.name === 'pattern_type') {
      refuse(
        `Option ${show(o.token)} is set by the service for image sequences: name the files with a number pattern such as img_%03d.png (globs and other patterns are not read)`,
      );
    }
    if (kind === 'concat' && o.name === 'safe') {
      // The service checks every entry itself and gives the rewritten list -safe 1: the wiki's
      // `-f concat -safe 0 -i list.txt` runs unchanged, and the value changes nothing.
      if (!/^-?[01]$/.test(o.value ?? '')) refuse(`Value ${show(o.value ?? '')} of option ${show(o.token)} must be 0 or 1`);
      continue;
    }
    const resolved = resolveAvOption(o, scope);
    if (resolved.length === 0) refuseNoEffect(o, scope, where);
    let value: string | undefined;
    for (const r of resolved) {
      const what = `Option ${show(o.token)} (${r.owner.split(',')[0]})`;
      if (r.verdict === undefined) refuse(`${what} is not allowed: it has not been judged for this FFmpeg build yet`);
      // Several demuxers may have the option (the probe picks one): the value must suit each.
      const canonical = checkOptionValue(r.opt, r.verdict, o.value!, { what });
      value = value === undefined || value === canonical ? canonical : o.value!;
    }
    if (!demuxer && resolved.every((r) => r.formatPrivate)) demuxerOptions.push(o.name);
    if (resolved.every((r) => r.owner === 'AVFormatContext' || r.formatPrivate)) probeArgs.push(o.token, value!);
    // An image read again and again (-loop 1), or a GIF that plays its own loop (-ignore_loop 0).
    if ((o.name === 'loop' && value === '1') || (o.name === 'ignore_loop' && value === '0')) loops = true;
    args.push(o.token, value!);
  }
  checkScaledPacing(pacing.readrate > 0 ? pacing.readrate : pacing.re ? 1 : 0, pacing.scale);
  return {
    index: source.index,
    source: source.source,
    kind,
    args,
    ...(demuxer && kind === 'media' ? { demuxer } : {}),
    demuxerOptions,
    probeArgs,
    endless: (loops || generatedEndless !== undefined) && !bounded,
    ...(generatedEndless !== undefined && !bounded ? { endlessCause: generatedEndless } : {}),
    ...(startNumber === undefined ? {} : { startNumber }),
  };
}

/**
 * After the probe named the demuxer of an input planned without -f: each demuxer option it was
 * given must be one of that demuxer's, else ffmpeg stops with "Option not found".
 */
export function checkDemuxerOptions(input: PlannedInput, demuxerFullName: string): void {
  const entry = demuxerEntry(demuxerFullName);
  for (const name of input.demuxerOptions) {
    if (!entry?.options.some((o) => o.name === name)) {
      refuse(
        `Option '-${name}' of task.inputs[${input.index}] has no effect: the file is ${demuxerFullName.split(',')[0]}, whose demuxer has no such option`,
      );
    }
  }
}
