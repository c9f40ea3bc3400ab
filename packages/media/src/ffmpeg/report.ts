// Analysis runs: an output with -f null writes no media; its file holds the report of the filters
// that measure (volumedetect, loudnorm print_format=json, silencedetect, cropdetect, ebur128...),
// which ffmpeg only logs. Such runs log at info level with each line's level shown
// ("[volumedetect@o0_volumedetect_0 @ 0x55..] [info] mean_volume: -21.1 dB"); the planner named
// every filter instance, so each line goes to the report of the output whose filters wrote it.
// A message of several lines (loudnorm's JSON) continues on lines without a prefix.

/** Bytes of report text kept per run; past it the report says it was cut. */
export const MAX_REPORT_BYTES = 4 * 1024 * 1024;

const PREFIXED = /^\[([^\]\s]+) @ 0x[0-9a-f]+\] (?:\[(\w+)\] )?(.*)$/;
const LEVEL_ONLY = /^\[(\w+)\] (.*)$/;
const ERROR_LEVELS = new Set(['error', 'fatal', 'panic']);

interface Entry {
  filter: string;
  instance: string;
  lines: string[];
}

export interface ReportSpec {
  /** Output file name; .json gets JSON, anything else text. */
  fileName: string;
  format: 'json' | 'text';
  /** The filter instance names whose lines it holds. */
  instances: readonly string[];
  /**
   * Those filters' names: some filters log under their name alone, not their instance's
   * ("[silencedetect @ 0x..]"); such lines go to every report that has one of them.
   */
  filters?: readonly string[];
}

export class ReportCollector {
  private readonly byInstance = new Map<string, ReportSpec[]>();
  private readonly entries = new Map<string, Entry>();
  private current: Entry | undefined;
  private bytes = 0;
  private cut = false;

  constructor(reports: readonly ReportSpec[]) {
    for (const r of reports) {
      for (const i of new Set([...r.instances, ...(r.filters ?? [])])) this.byInstance.set(i, [...(this.byInstance.get(i) ?? []), r]);
    }
  }

  /** The StderrTail filter: takes report lines, keeps errors (without their level tag), drops the rest. */
  readonly filter = (line: string): string | null => {
    const prefixed = PREFIXED.exec(line);
    const bare = prefixed ? undefined : LEVEL_ONLY.exec(line);
    if (!prefixed && !bare) {
      // No prefix: the rest of a message of several lines.
      if (this.current) this.add(this.current, line);
      return null;
    }
    const level = prefixed ? prefixed[2] : bare![1];
    const text = prefixed ? prefixed[3]! : bare![2]!;
    this.current = undefined;
    if (level !== undefined && ERROR_LEVELS.has(level)) return prefixed ? `[${prefixed[1]} @ 0x0] ${text}` : text;
    if (!prefixed) return null;
    const context = prefixed[1]!;
    const at = context.indexOf('@');
    const instance = at < 0 ? context : context.slice(at + 1);
    if (!this.byInstance.has(instance) || (level !== undefined && level !== 'info')) return null;
    let entry = this.entries.get(instance);
    if (!entry) {
      entry = { filter: at < 0 ? context : context.slice(0, at), instance, lines: [] };
      this.entries.set(instance, entry);
    }
    this.current = entry;
    this.add(entry, text);
    return null;
  };

  private add(entry: Entry, line: string): void {
    if (this.cut) return;
    this.bytes += Buffer.byteLength(line) + 1;
    if (this.bytes > MAX_REPORT_BYTES) {
      this.cut = true;
      return;
    }
    entry.lines.push(line);
  }

  /** The report file's text for one report output. */
  render(spec: ReportSpec): string {
    const entries = [...this.entries.values()].filter((e) =>
      (this.byInstance.get(e.instance) ?? []).some((r) => r.fileName === spec.fileName),
    );
    if (spec.format === 'text') {
      const lines = entries.flatMap((e) => e.lines.filter((l) => l.trim() !== '').map((l) => `[${e.filter}] ${l}`));
      if (this.cut) lines.push(`[report] cut at ${MAX_REPORT_BYTES} bytes`);
      return lines.length > 0 ? `${lines.join('\n')}\n` : '';
    }
    const filters = entries.map((e) => {
      const lines = e.lines.filter((l) => l.trim() !== '');
      const json = embeddedJson(e.lines);
      return { filter: e.filter, lines, ...(json === undefined ? {} : { json }) };
    });
    return `${JSON.stringify({ filters, ...(this.cut ? { truncated: true } : {}) }, null, 2)}\n`;
  }
}

/** A JSON object a filter printed over several lines (loudnorm print_format=json), if any. */
function embeddedJson(lines: readonly string[]): unknown {
  const start = lines.findIndex((l) => l.trim() === '{');
  if (start < 0) return undefined;
  let end = -1;
  for (let i = lines.length - 1; i > start; i--)
    if (lines[i]!.trim() === '}') {
      end = i;
      break;
    }
  if (end < 0) return undefined;
  try {
    return JSON.parse(lines.slice(start, end + 1).join('\n'));
  } catch {
    return undefined;
  }
}
