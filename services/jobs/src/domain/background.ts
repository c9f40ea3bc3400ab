// Work a request leaves behind after its answer (recording a sync job's completion through an
// outage). The service's close stops it and waits for it, so nothing touches the store after the
// service has closed it.
export interface Background {
  /** Aborted when the service closes. */
  readonly signal: AbortSignal;
  track(work: Promise<unknown>): void;
  stop(): Promise<void>;
}

export function createBackground(): Background {
  const abort = new AbortController();
  const pending = new Set<Promise<unknown>>();
  return {
    signal: abort.signal,
    track(work) {
      const settled = work.catch(() => undefined).finally(() => pending.delete(settled));
      pending.add(settled);
    },
    async stop() {
      abort.abort();
      await Promise.all([...pending]);
    },
  };
}
