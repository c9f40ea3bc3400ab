// The highest resident set size a process reaches, sampled every 20 ms while a bench runs.

export interface RssPeak {
  /** The highest sample since the start or the last restart. */
  readonly peak: number;
  /** Starts a new watch from `from` (a fresh sample of the process). */
  restart(from: number): void;
  stop(): void;
}

export function watchRssPeak(read: () => Promise<number>, from: number, everyMs = 20): RssPeak {
  let peak = from;
  const timer = setInterval(
    () =>
      void read().then(
        (r) => (peak = Math.max(peak, r)),
        () => undefined,
      ),
    everyMs,
  );
  return {
    get peak() {
      return peak;
    },
    restart: (value) => (peak = value),
    stop: () => clearInterval(timer),
  };
}
