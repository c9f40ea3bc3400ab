// Keeps only the last lines of a process's stderr: enough for an error summary, bounded memory
// however much a broken input makes ffmpeg complain.

const MAX_LINES = 40;
const MAX_LINE_CHARS = 1000;

export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString('utf8');
    const parts = text.split(/\r?\n|\r/);
    this.partial = (parts.pop() ?? '').slice(-MAX_LINE_CHARS);
    for (const line of parts) this.add(line);
  }

  /** The kept lines, the unterminated last one included. */
  get(): string[] {
    return this.partial ? [...this.lines, this.partial] : [...this.lines];
  }

  private add(line: string): void {
    if (line.trim() === '') return;
    this.lines.push(line.slice(0, MAX_LINE_CHARS));
    if (this.lines.length > MAX_LINES) this.lines.shift();
  }
}
