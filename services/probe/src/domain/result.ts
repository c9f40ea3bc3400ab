// ffprobe's JSON cut down to exactly the sections asked for. ffprobe adds members of its own
// (an empty "programs" next to streams) and merges frames and packets into one
// "packets_and_frames" list when both are shown; the result has one member per section asked.
import type { ProbeSection, ProbeSpec } from '@media/media';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a section holds when ffprobe printed nothing for it (no chapters, no error). */
function empty(section: ProbeSection): unknown {
  if (section === 'format') return {};
  if (section === 'error') return null;
  return [];
}

/** Splits ffprobe's merged list back into what -show_packets and -show_frames print alone. */
function splitPacketsAndFrames(list: unknown[]): { packets: Json[]; frames: Json[] } {
  const packets: Json[] = [];
  const frames: Json[] = [];
  for (const item of list) {
    if (!isObject(item)) continue;
    const { type, ...rest } = item;
    (type === 'packet' ? packets : frames).push(rest);
  }
  return { packets, frames };
}

/** The members an item of `section` may have: those asked for (ffprobe adds empty sub-sections, `side_data_list: [{}]`). */
function askedMembers(section: ProbeSection, listed: string[], spec: ProbeSpec): Set<string> | undefined {
  if (listed.length === 0) return undefined; // the whole section
  const members = new Set(listed.map((entry) => (entry.startsWith('tag:') ? 'tags' : entry)));
  if (section === 'streams' && spec.countFrames) members.add('nb_read_frames');
  if (section === 'streams' && spec.countPackets) members.add('nb_read_packets');
  return members;
}

const only = (item: unknown, members: Set<string>): unknown =>
  isObject(item) ? Object.fromEntries(Object.entries(item).filter(([key]) => members.has(key))) : item;

/**
 * The result object. `filePath` replaces format.filename, which would otherwise name the
 * service's staged copy ("file:in/0") rather than what the caller asked about.
 */
export function pickSections(json: unknown, spec: ProbeSpec, filePath: string): Json {
  const source: Json = isObject(json) ? { ...json } : {};
  if (Array.isArray(source.packets_and_frames)) Object.assign(source, splitPacketsAndFrames(source.packets_and_frames));
  const result: Json = {};
  for (const [section, listed] of Object.entries(spec.sections) as [ProbeSection, string[]][]) {
    const value = source[section] ?? empty(section);
    const members = askedMembers(section, listed, spec);
    result[section] =
      members === undefined || section === 'error'
        ? value
        : Array.isArray(value)
          ? value.map((item) => only(item, members))
          : only(value, members);
  }
  if (isObject(result.format) && 'filename' in result.format) result.format = { ...result.format, filename: filePath };
  return result;
}
