// The wire protocol between a service and its fork server (native/forkserver.c): one request per
// connection, answered by frames until the run has exited.
import { constants } from 'node:os';

/** The request the library reads: NUL-terminated strings, each list preceded by its length. */
export function encodeRequest(cwd: string, env: Record<string, string>, limits: Record<string, number>, argv: string[]): Buffer {
  const parts = ['FS1', cwd];
  const envItems = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  parts.push(String(envItems.length), ...envItems);
  const limitItems = Object.entries(limits).map(([k, v]) => `${k}=${v}`);
  parts.push(String(limitItems.length), ...limitItems);
  parts.push(String(argv.length), ...argv);
  for (const part of parts) if (part.includes('\0')) throw new Error('an argument contains a NUL byte');
  return Buffer.from(parts.map((p) => `${p}\0`).join(''));
}

/** A wait(2) status as a direct run reports it: an exit code, or the name of the killing signal. */
export function decodeStatus(status: number): { exitCode: number | undefined; signal: string | undefined } {
  const signo = status & 0x7f;
  if (signo === 0) return { exitCode: (status >> 8) & 0xff, signal: undefined };
  const name = Object.entries(constants.signals).find(([, n]) => n === signo)?.[0];
  return { exitCode: undefined, signal: name ?? `SIG${signo}` };
}

/** Splits the byte stream into frames: type (1 byte), length (4 bytes, big-endian), payload. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  constructor(private readonly onFrame: (type: number, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 5) {
      const length = this.pending.readUInt32BE(1);
      if (this.pending.length < 5 + length) break;
      const type = this.pending[0]!;
      const payload = this.pending.subarray(5, 5 + length);
      this.pending = this.pending.subarray(5 + length);
      this.onFrame(type, payload);
    }
  }
}
