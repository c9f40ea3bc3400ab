// A pino logger whose JSON lines the test reads back, parsed.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export function captureLog(level: string): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino({ level }, sink), lines };
}
