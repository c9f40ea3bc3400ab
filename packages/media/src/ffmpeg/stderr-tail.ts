// Keeps only the last lines of a process's stderr: enough for an error summary, bounded memory
// however much a broken input makes ffmpeg complain.

const MAX_LINES = 40;
const MAX_LINE_CHARS = 1000;

/**
 * Sees every line first: returns the line to keep (possibly rewritten), or null to drop it. Runs
 * that log at info level use it to take the filters' report lines and keep only the errors.
 */
export type StderrLineFilter = (line: string) => string | null;

export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(private readonly filter?: StderrLineFilter) {}

  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString('utf8');
    const parts = text.split(/\r?\n|\r/);
    this.partial = (parts.pop() ?? '').slice(-MAX_LINE_CHARS);
    for (const line of parts) this.add(line);
  }

  /** The kept lines, the unterminated last one included. */
  get(): string[] {
    if (this.partial) {
      this.add(this.partial);
      this.partial = '';
    }
    return [...this.lines];
  }

  private add(raw: string): void {
    const line = this.filter ? this.filter(raw) : raw;
    if (line === null || line.trim() === '') return;
    this.lines.push(line.slice(0, MAX_LINE_CHARS));
    if (this.lines.length > MAX_LINES) this.lines.shift();
  }
}
