// Runs tus-child.js (a tus-js-client upload in a process of its own) and reports what it did;
// with `cutAt`, kills it once that fraction of the file is sent: the server sees the connection
// close mid-body, as when a laptop's network drops, and the upload is left to be resumed.
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';

// Under jest this module is loaded from src/ (TypeScript): the child is always the built one.
const here = import.meta.dirname;
const childJs = join(basename(here) === 'src' ? join(here, '..', 'dist') : here, 'tus-child.js');

export interface TusRun {
  /** The upload ended and the server confirmed it. */
  ok: boolean;
  /** The offsets each PATCH started from (a resumed upload's first is past 0). */
  patchFrom: number[];
  /** Bytes sent when the process was killed (cutAt). */
  cutAfter?: number;
  error?: string;
  status?: number | null;
}

export function runTusUpload(file: string, url: string, opts: { cutAt?: number; chunkBytes?: number } = {}): Promise<TusRun> {
  const size = statSync(file).size;
  const args = [childJs, file, url, ...(opts.chunkBytes ? [String(opts.chunkBytes)] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const run: TusRun = { ok: false, patchFrom: [] };
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const event = JSON.parse(line) as { patchFrom?: number; sent?: number; ok?: boolean; error?: string; status?: number | null };
      if (event.patchFrom !== undefined) run.patchFrom.push(event.patchFrom);
      if (event.ok) run.ok = true;
      if (event.error !== undefined) Object.assign(run, { error: event.error, status: event.status });
      if (event.sent !== undefined && opts.cutAt !== undefined && run.cutAfter === undefined && event.sent >= size * opts.cutAt) {
        run.cutAfter = event.sent;
        child.kill('SIGKILL');
      }
    });
    child.once('exit', () => resolve(run));
  });
}
