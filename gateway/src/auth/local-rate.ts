// Per-key rate decisions in the gateway, on counts shared through Auth. Auth counts the request
// that authenticates a key here and answers the key's counts; after that this gateway admits
// requests against those counts plus its own, and reports what it admitted every `syncMs` in one
// CountRequests call, getting back the counts of every gateway. One gateway is exact; with N
// replicas a key can pass the limit by what the other replicas admit in one sync interval.
import { decide, windowOf, type RateClock, type RateDecision } from '@media/platform';

export interface RateCounts {
  keyId: string;
  window: number;
  previous: number;
  current: number;
}

export interface Admitted {
  keyId: string;
  window: number;
  count: number;
}

export interface LocalRateOptions {
  limit: number;
  /** Adds the admitted requests to the shared counts; answers the counts after them. */
  report: (admitted: Admitted[]) => Promise<RateCounts[]>;
  syncMs: number;
  now?: RateClock;
  onReportError?: (err: unknown) => void;
  /** After each report's answer is applied, with the counts heard (tests wait on it). */
  onReported?: (counts: RateCounts[]) => void;
}

/** Test-only deps of a gateway's rate counting: the windows' clock, and a report hook. */
export type RateTestDeps = Pick<LocalRateOptions, 'now' | 'onReported'>;

const REPORT_CHUNK = 128;

interface KeyState {
  window: number;
  /** Shared counts as last heard from Auth. */
  previous: number;
  current: number;
  /** Admitted here and being reported. */
  inFlight: number;
  /** Admitted here since the last report. */
  pending: number;
}

export function createLocalRate({ limit, report, syncMs, now = Date.now, onReportError, onReported }: LocalRateOptions) {
  const keys = new Map<string, KeyState>();
  // Counts of a window that rolled before they were reported.
  let leftover: Admitted[] = [];
  let reporting: Promise<void> | undefined;

  function roll(s: KeyState, keyId: string, window: number): void {
    if (s.window === window) return;
    if (s.pending) leftover.push({ keyId, window: s.window, count: s.pending });
    s.previous = window === s.window + 1 ? s.current + s.inFlight + s.pending : 0;
    s.current = s.inFlight = s.pending = 0;
    s.window = window;
  }

  async function flush(): Promise<void> {
    const batch = leftover;
    leftover = [];
    for (const [keyId, s] of keys) {
      if (s.pending) {
        batch.push({ keyId, window: s.window, count: s.pending });
        s.inFlight += s.pending;
        s.pending = 0;
      } else if (!s.inFlight && s.window < windowOf(now()) - 1) keys.delete(keyId); // idle key
    }
    if (!batch.length) return;
    const counts: RateCounts[] = [];
    try {
      // Bounded reports: Auth (maybe in this very process) never stalls long on one of them.
      for (let i = 0; i < batch.length; i += REPORT_CHUNK) counts.push(...(await report(batch.slice(i, i + REPORT_CHUNK))));
    } catch (err) {
      onReportError?.(err);
    }
    const heard = new Map(counts.map((c) => [`${c.keyId}:${c.window}`, c]));
    for (const a of batch) {
      const s = keys.get(a.keyId);
      const c = heard.get(`${a.keyId}:${a.window}`);
      if (s?.window === a.window) {
        s.inFlight -= a.count;
        if (c) Object.assign(s, { previous: c.previous, current: c.current });
        // Not heard (Auth down): keep the requests counted here and report them next time.
        else s.pending += a.count;
      } else if (s?.window === a.window + 1 && c) s.previous = Math.max(s.previous, c.current);
      else if (!c && s && a.window === s.window - 1) leftover.push(a);
    }
    if (counts.length) onReported?.(counts);
  }

  const timer = setInterval(() => {
    reporting ??= flush().finally(() => (reporting = undefined));
  }, syncMs);
  timer.unref();

  return {
    /** Counts from Auth after it counted a request of this key. */
    seed(c: RateCounts): void {
      const s = keys.get(c.keyId);
      if (!s || s.window <= c.window)
        keys.set(c.keyId, {
          window: c.window,
          previous: c.previous,
          current: c.current,
          inFlight: s?.window === c.window ? s.inFlight : 0,
          pending: s?.window === c.window ? s.pending : 0,
        });
    },
    /** Decides and counts one request; undefined when this gateway holds no counts for the key. */
    admit(keyId: string): RateDecision | undefined {
      const s = keys.get(keyId);
      if (!s) return undefined;
      const t = now();
      roll(s, keyId, windowOf(t));
      const d = decide(s.previous, s.current + s.inFlight + s.pending, t, limit);
      if (d.allowed) s.pending++;
      return d;
    },
    /** Reports what is pending now (also on close, so nothing admitted goes uncounted). */
    async flush(): Promise<void> {
      await reporting;
      await flush();
    },
    async close(): Promise<void> {
      clearInterval(timer);
      await this.flush();
    },
  };
}

export type LocalRate = ReturnType<typeof createLocalRate>;
