// The ffprobe options for a checked probe (validateProbeOptions has already refused anything
// else): one -show_entries naming exactly the sections and entries asked for, then the controls.
// The fixed flags, the forced demuxer and the file: input are added by runFfprobe (ffprobeArgv).
import type { ProbeSection, ProbeSpec } from '@media/media';

/** ffprobe's -show_entries name of each section (the body uses the JSON member names). */
const SHOW_NAME: Record<ProbeSection, string> = {
  format: 'format',
  streams: 'stream',
  chapters: 'chapter',
  programs: 'program',
  frames: 'frame',
  packets: 'packet',
  error: 'error',
};

/** Entries that name a whole sub-section: `tags` -> stream_tags, `disposition` -> stream_disposition. */
const SUBSECTION_ENTRIES = new Set(['tags', 'disposition', 'side_data_list']);

type Targets = Map<string, Set<string> | 'all'>;

function addAll(targets: Targets, name: string): void {
  targets.set(name, 'all');
}

function addEntry(targets: Targets, name: string, entry: string): void {
  const current = targets.get(name);
  if (current === 'all') return;
  targets.set(name, (current ?? new Set()).add(entry));
}

/** The -show_entries value, e.g. "format=duration,size:stream=index:stream_tags=language". */
export function showEntries(spec: ProbeSpec): string {
  const targets: Targets = new Map();
  for (const [section, listed] of Object.entries(spec.sections) as [ProbeSection, string[]][]) {
    const base = SHOW_NAME[section];
    if (listed.length === 0) {
      addAll(targets, base);
      continue;
    }
    const entries = [...listed];
    // Counting fills these stream entries; asking to count means asking to see the count.
    if (section === 'streams' && spec.countFrames) entries.push('nb_read_frames');
    if (section === 'streams' && spec.countPackets) entries.push('nb_read_packets');
    for (const entry of entries) {
      if (SUBSECTION_ENTRIES.has(entry)) addAll(targets, `${base}_${entry}`);
      else if (entry.startsWith('tag:')) addEntry(targets, `${base}_tags`, entry.slice(4));
      else addEntry(targets, base, entry);
    }
  }
  return [...targets].map(([name, entries]) => (entries === 'all' ? name : `${name}=${[...entries].join(',')}`)).join(':');
}

export function ffprobeArgs(spec: ProbeSpec): string[] {
  const args = ['-show_entries', showEntries(spec)];
  if (spec.selectStreams !== undefined) args.push('-select_streams', spec.selectStreams);
  if (spec.readIntervals.length > 0) args.push('-read_intervals', spec.readIntervals.join(','));
  if (spec.countFrames) args.push('-count_frames');
  if (spec.countPackets) args.push('-count_packets');
  // ffprobe takes microseconds; the body says seconds.
  if (spec.analyzeDurationSec !== undefined) args.push('-analyzeduration', String(Math.max(1, Math.round(spec.analyzeDurationSec * 1e6))));
  if (spec.probesizeBytes !== undefined) args.push('-probesize', String(spec.probesizeBytes));
  return args;
}
