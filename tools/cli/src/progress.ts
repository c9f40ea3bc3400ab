// Progress on stderr: a bar on a terminal, one final line otherwise, nothing when quiet.
import { SingleBar } from 'cli-progress';

export interface Output {
  json: boolean;
  quiet: boolean;
  /** stderr is a terminal: bars are drawn. */
  tty: boolean;
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(bytes < 10_000_000 ? 2 : 1)} MB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export interface Meter {
  update(value: number, payload?: Record<string, string | number>): void;
  /** Ends the bar, or prints the final line where there is no bar. */
  done(line: string): void;
}

function meter(out: Output, format: string, total: number, initial: Record<string, string> = {}): Meter {
  if (out.quiet) return { update() {}, done() {} };
  if (!out.tty)
    return {
      update() {},
      done: (line) => void process.stderr.write(`${line}\n`),
    };
  const bar = new SingleBar({ format, stream: process.stderr, hideCursor: true, clearOnComplete: true, etaBuffer: 20 });
  bar.start(total, 0, initial);
  return {
    update: (value, payload) => bar.update(value, payload),
    done(line) {
      bar.stop();
      process.stderr.write(`${line}\n`);
    },
  };
}

/** Bytes moving (an upload, a download): percent, MB/s, ETA. */
export function bytesMeter(out: Output, label: string, total: number | undefined) {
  const started = Date.now();
  const m = meter(out, `${label} [{bar}] {percentage}% | {transferred} | {rate} | ETA {eta_formatted}`, total ?? 1, {
    transferred: '-',
    rate: '-',
  });
  let loaded = 0;
  /** Where a resumed upload started (bytes the service already had). */
  let from = 0;
  return {
    update(value: number) {
      loaded = value;
      const elapsed = Math.max(1, Date.now() - started) / 1000;
      const rate = `${mb((value - from) / elapsed)}/s`;
      m.update(total ? value : 0, { transferred: total ? `${mb(value)} / ${mb(total)}` : mb(value), rate });
    },
    /** The service had `offset` bytes already: the rate counts the rest, the final line says so. */
    resumed(offset: number) {
      from = offset;
      loaded = Math.max(loaded, offset);
    },
    done(verb: string) {
      const elapsed = Date.now() - started;
      const sent = loaded - from;
      const resumed = from > 0 && total ? ` (resumed at ${mb(from)} of ${mb(total)})` : '';
      m.done(`${verb} ${label}: ${mb(sent)} in ${secs(elapsed)} (${mb((sent / Math.max(1, elapsed)) * 1000)}/s)${resumed}`);
    },
  };
}

/** A job running: the job's own percent, speed and ETA. */
export function jobMeter(out: Output, jobId: string) {
  const started = Date.now();
  // The job's own ETA (from ffmpeg's progress), not the bar's guess.
  const m = meter(out, `${jobId} [{bar}] {percentage}% | {status} | {speed} | ETA {job_eta}`, 100, {
    status: 'pending',
    speed: '-',
    job_eta: '-',
  });
  return {
    update(status: string, progress?: { percent?: number; speed?: number; eta_sec?: number | null }) {
      m.update(Math.min(100, Math.round(progress?.percent ?? 0)), {
        status,
        speed: progress?.speed ? `${progress.speed.toFixed(2)}x` : '-',
        job_eta: progress?.eta_sec == null ? '-' : `${Math.round(progress.eta_sec)} s`,
      });
    },
    done(status: string) {
      m.done(`job ${jobId} ${status} after ${secs(Date.now() - started)}`);
    },
  };
}
