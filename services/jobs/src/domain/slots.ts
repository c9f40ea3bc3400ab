// WORKER_CONCURRENCY ffmpeg processes per worker. A synchronous request that finds no free slot
// is answered 503 at once (the spec: use the async endpoint, which queues); an async job, already
// staged, waits for one in turn.
export type Release = () => void;

export class Slots {
  private used = 0;
  private readonly waiting: { grant: (release: Release) => void }[] = [];

  constructor(readonly capacity: number) {}

  tryAcquire(): Release | null {
    if (this.used >= this.capacity || this.waiting.length > 0) return null;
    this.used++;
    return this.releaser();
  }

  /** Waits for a slot (first come, first served); rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<Release> {
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: (release: Release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  get inUse(): number {
    return this.used;
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // Handed straight to the next waiter: a sync request arriving now cannot take it first.
      if (next) next.grant(this.releaser());
      else this.used--;
    };
  }
}
