// The body of POST /ffprobe/analyze: { file_path, probe? }. The probe object maps sections to the
// entry names to report and carries ffprobe's usual controls. Everything that reaches ffprobe is
// checked here, by the gateway and again by the Probe service (which does not trust the gateway);
// both call these functions so they cannot disagree. Every refusal is a 400 naming the field.
import { refuse, show } from './refuse.js';
import { STREAM_SPECIFIER } from './stream-spec.js';
import { parseFilePath, type TaskInput } from './task-shape.js';

export const PROBE_SECTIONS = ['format', 'streams', 'chapters', 'programs', 'frames', 'packets', 'error'] as const;
export type ProbeSection = (typeof PROBE_SECTIONS)[number];

export const PROBE_CONTROLS = [
  'select_streams',
  'read_intervals',
  'count_frames',
  'count_packets',
  'analyzeduration',
  'probesize',
] as const;

export const PROBE_LIMITS = {
  /** Spec: analyzeduration up to 60 seconds. */
  maxAnalyzeDurationSec: 60,
  /** Spec: probesize up to 50 MB (decimal, as every size in the spec). ffprobe's own minimum is 32. */
  maxProbesizeBytes: 50_000_000,
  minProbesizeBytes: 32,
  /** Spec: frames and packets only within intervals of at most 30 seconds or 3000 frames. */
  maxIntervalSec: 30,
  maxIntervalFrames: 3000,
  /** Ours: each interval is bounded, so the count of them bounds the whole read. */
  maxIntervals: 10,
  maxEntriesPerSection: 100,
} as const;

/** A checked probe: sections with their entry names ([] = every entry), plus controls. */
export interface ProbeSpec {
  sections: Partial<Record<ProbeSection, string[]>>;
  selectStreams?: string;
  readIntervals: string[];
  countFrames: boolean;
  countPackets: boolean;
  analyzeDurationSec?: number;
  probesizeBytes?: number;
}

/** What a probe reports when the request has no probe object: format and streams, every entry. */
export function defaultProbeSpec(): ProbeSpec {
  return { sections: { format: [], streams: [] }, readIntervals: [], countFrames: false, countPackets: false };
}

export interface ProbeRequest {
  input: TaskInput;
  probe: ProbeSpec;
  /** False when the body had no probe object (the default applies). */
  probeGiven: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const SECTION_LIST = PROBE_SECTIONS.join(', ');

/** Checks a whole POST /ffprobe/analyze body. The sentences match the gateway's schema errors. */
export function validateProbeRequest(body: unknown): ProbeRequest {
  if (!isObject(body)) refuse('The request body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (key !== 'file_path' && key !== 'probe') refuse(`Unknown field ${show(key)} in request body`);
  }
  if (body.file_path === undefined) refuse("Missing required field 'file_path' in request body");
  if (typeof body.file_path !== 'string') refuse("Field 'file_path' in request body must be a string");
  const input = parseFilePath(body.file_path);
  const probeGiven = body.probe !== undefined;
  return { input, probe: probeGiven ? validateProbeOptions(body.probe) : defaultProbeSpec(), probeGiven };
}

/** Checks a probe object as the body carries it (snake_case controls, section arrays). */
export function validateProbeOptions(raw: unknown): ProbeSpec {
  if (!isObject(raw)) refuse(`probe must be an object mapping sections (${SECTION_LIST}) to arrays of entry names`);
  for (const key of Object.keys(raw)) {
    if (!(PROBE_SECTIONS as readonly string[]).includes(key) && !(PROBE_CONTROLS as readonly string[]).includes(key)) {
      refuse(`Unknown field ${show(key)} in probe: sections are ${SECTION_LIST}; controls are ${PROBE_CONTROLS.join(', ')}`);
    }
  }
  const sections: ProbeSpec['sections'] = {};
  for (const section of PROBE_SECTIONS) {
    if (raw[section] !== undefined) sections[section] = readEntries(section, raw[section]);
  }
  if (Object.keys(sections).length === 0) refuse(`probe must name at least one section: ${SECTION_LIST}`);

  const probe: ProbeSpec = {
    sections,
    readIntervals: raw.read_intervals === undefined ? [] : readIntervals(raw.read_intervals),
    countFrames: readBoolean(raw.count_frames, 'count_frames'),
    countPackets: readBoolean(raw.count_packets, 'count_packets'),
  };
  if (raw.select_streams !== undefined) probe.selectStreams = readStreamSpecifier(raw.select_streams);
  if (raw.analyzeduration !== undefined) probe.analyzeDurationSec = readAnalyzeDuration(raw.analyzeduration);
  if (raw.probesize !== undefined) probe.probesizeBytes = readProbesize(raw.probesize);

  // Frames, packets and counting read the media itself: only within bounded intervals.
  const bounded = `only within intervals of at most ${PROBE_LIMITS.maxIntervalSec} seconds or ${PROBE_LIMITS.maxIntervalFrames} frames (e.g. '%+#100' or '10%+5')`;
  for (const section of ['frames', 'packets'] as const) {
    if (sections[section] && probe.readIntervals.length === 0) {
      refuse(`probe.${section} needs probe.read_intervals: frames and packets are reported ${bounded}`);
    }
  }
  for (const [flag, on, entry] of [
    ['count_frames', probe.countFrames, 'nb_read_frames'],
    ['count_packets', probe.countPackets, 'nb_read_packets'],
  ] as const) {
    if (!on) continue;
    if (probe.readIntervals.length === 0)
      refuse(`probe.${flag} needs probe.read_intervals: counting reads the whole file, so it is done ${bounded}`);
    if (!sections.streams) refuse(`probe.${flag} reports ${entry} in the streams section: ask for streams too`);
  }
  return probe;
}

// ---- entries

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,63}$/;
const TAG_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
/** Sub-sections a list may name as a whole, and the sections that have them. */
const SUBSECTIONS: Record<string, readonly ProbeSection[]> = {
  tags: ['format', 'streams', 'chapters', 'programs', 'frames', 'packets'],
  disposition: ['streams'],
  side_data_list: ['streams', 'frames', 'packets'],
};

function readEntries(section: ProbeSection, raw: unknown): string[] {
  const where = `probe.${section}`;
  if (!Array.isArray(raw)) refuse(`${where} must be an array of entry names ([] for every entry)`);
  if (raw.length > PROBE_LIMITS.maxEntriesPerSection) {
    refuse(`${where} has ${raw.length} entries; at most ${PROBE_LIMITS.maxEntriesPerSection} are allowed`);
  }
  const entries = raw.map((entry, i) => {
    if (typeof entry !== 'string') refuse(`${where}[${i}] must be a string (an entry name)`);
    const problem = entryProblem(section, entry);
    if (problem) refuse(`${where}[${i}] ${show(entry)} ${problem}`);
    return entry;
  });
  return [...new Set(entries)];
}

function entryProblem(section: ProbeSection, entry: string): string | null {
  const sub = SUBSECTIONS[entry];
  if (sub) return sub.includes(section) ? null : `is not reported for ${section}`;
  if (entry.startsWith('tag:')) {
    if (!SUBSECTIONS.tags!.includes(section)) return `is not reported for ${section}`;
    return TAG_KEY.test(entry.slice(4)) ? null : 'names a tag key that is not 1 to 64 letters, digits, dots, hyphens or underscores';
  }
  if (IDENTIFIER.test(entry)) return null;
  return 'is not an entry name: use lower-case identifiers such as codec_name, or tags, tag:<key>, disposition, side_data_list';
}

// ---- controls

function readBoolean(raw: unknown, name: string): boolean {
  if (raw === undefined) return false;
  if (typeof raw !== 'boolean') refuse(`probe.${name} must be true or false`);
  return raw;
}

function readStreamSpecifier(raw: unknown): string {
  if (typeof raw !== 'string' || !STREAM_SPECIFIER.test(raw)) {
    refuse(
      `probe.select_streams ${typeof raw === 'string' ? `${show(raw)} ` : ''}must be a stream specifier such as v, a, s, v:0, a:1 or 2`,
    );
  }
  return raw;
}

function readAnalyzeDuration(raw: unknown): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0.000001)
    refuse('probe.analyzeduration must be a number of seconds greater than 0');
  if (raw > PROBE_LIMITS.maxAnalyzeDurationSec)
    refuse(`probe.analyzeduration may be at most ${PROBE_LIMITS.maxAnalyzeDurationSec} seconds`);
  return raw;
}

function readProbesize(raw: unknown): number {
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < PROBE_LIMITS.minProbesizeBytes) {
    refuse(`probe.probesize must be a whole number of bytes, at least ${PROBE_LIMITS.minProbesizeBytes}`);
  }
  if (raw > PROBE_LIMITS.maxProbesizeBytes) refuse(`probe.probesize may be at most ${PROBE_LIMITS.maxProbesizeBytes} bytes (50 MB)`);
  return raw;
}

// ---- read_intervals: ffprobe's [START|+START_OFFSET][%[END|+END_OFFSET|+#FRAMES]]

/** Seconds (10, 2.5, 500ms, 250us) or a clock time ([HH:]MM:SS[.frac]); never negative. */
const SECONDS = /^(\d{1,10})(?:\.(\d{1,6}))?(s|ms|us)?$/;
const CLOCK = /^(?:(\d{1,3}):)?([0-5]\d):([0-5]\d)(?:\.(\d{1,6}))?$/;
const FRAMES = /^#(\d{1,6})$/;

function parseTime(text: string): number | undefined {
  const s = SECONDS.exec(text);
  if (s) {
    const value = Number(`${s[1]}.${s[2] ?? '0'}`);
    return s[3] === 'ms' ? value / 1e3 : s[3] === 'us' ? value / 1e6 : value;
  }
  const c = CLOCK.exec(text);
  if (c) return Number(c[1] ?? 0) * 3600 + Number(c[2]) * 60 + Number(`${c[3]}.${c[4] ?? '0'}`);
  return undefined;
}

function readIntervals(raw: unknown): string[] {
  const syntax = "ffprobe's syntax (e.g. '%+#100', '10%+5', '00:01:00%00:01:20')";
  let list: string[];
  if (typeof raw === 'string') list = raw.split(',');
  else if (Array.isArray(raw) && raw.every((r) => typeof r === 'string')) list = raw as string[];
  else refuse(`probe.read_intervals must be a string or an array of strings in ${syntax}`);
  if (list.length === 0) refuse('probe.read_intervals must hold at least one interval');
  if (list.length > PROBE_LIMITS.maxIntervals)
    refuse(`probe.read_intervals has ${list.length} intervals; at most ${PROBE_LIMITS.maxIntervals} are allowed`);
  for (const interval of list) checkInterval(interval, syntax);
  return list;
}

function checkInterval(interval: string, syntax: string): void {
  const bad: () => never = () => refuse(`probe.read_intervals: ${show(interval)} is not an interval in ${syntax}`);
  const parts = interval.split('%');
  if (parts.length > 2) bad();
  const [startText, endText] = parts as [string, string | undefined];
  const startOffset = startText.startsWith('+');
  const start = startText === '' ? undefined : parseTime(startOffset ? startText.slice(1) : startText);
  if (startText !== '' && start === undefined) bad();
  if (endText === undefined || endText === '') {
    refuse(
      `probe.read_intervals: interval ${show(interval)} has no end; each interval must end within ${PROBE_LIMITS.maxIntervalSec} seconds or ${PROBE_LIMITS.maxIntervalFrames} frames (e.g. '10%+5' or '%+#100')`,
    );
  }
  const over: (what: string) => never = (what) =>
    refuse(
      `probe.read_intervals: an interval may span at most ${PROBE_LIMITS.maxIntervalSec} seconds or ${PROBE_LIMITS.maxIntervalFrames} frames; ${show(interval)} spans ${what}`,
    );
  if (endText.startsWith('+')) {
    const frames = FRAMES.exec(endText.slice(1));
    if (frames) {
      const n = Number(frames[1]);
      if (n < 1) bad();
      if (n > PROBE_LIMITS.maxIntervalFrames) over(`${n} frames`);
      return;
    }
    const duration = parseTime(endText.slice(1));
    if (duration === undefined) bad();
    if (duration > PROBE_LIMITS.maxIntervalSec) over(`${duration} seconds`);
    return;
  }
  // An absolute end: its span is only known from an absolute start.
  const end = parseTime(endText);
  if (end === undefined) bad();
  if (start === undefined || startOffset) {
    refuse(
      `probe.read_intervals: interval ${show(interval)} has an absolute end but no absolute start; write START%END or START%+DURATION`,
    );
  }
  if (end <= start) refuse(`probe.read_intervals: interval ${show(interval)} ends before it starts`);
  if (end - start > PROBE_LIMITS.maxIntervalSec) over(`${Number((end - start).toFixed(6))} seconds`);
}
