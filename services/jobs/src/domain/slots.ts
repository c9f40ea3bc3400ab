// WORKER_CONCURRENCY ffmpeg processes per worker. A synchronous request that finds no free slot
// is answered 503 at once (the spec: use the async endpoint, which queues).
export class Slots {
  private used = 0;
  constructor(readonly capacity: number) {}

  tryAcquire(): (() => void) | null {
    if (this.used >= this.capacity) return null;
    this.used++;
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.used--;
      }
    };
  }

  get inUse(): number {
    return this.used;
  }
}
