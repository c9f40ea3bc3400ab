// A transfer must keep moving at a least rate: a peer that sends one byte every few seconds keeps
// a connection from going idle, not from being cut. Used for signed-URL uploads (Storage) and URL
// inputs (the fetcher).

/** URL inputs' default floor, in bytes a second averaged over a minute (URL_MIN_BYTES_PER_SEC). */
export const DEFAULT_URL_MIN_BYTES_PER_SEC = 16 * 1024;

export interface RateFloor {
  /** 0: no floor. */
  minBytesPerSec: number;
  windowMs: number;
  /** Bytes moved so far (a running total). */
  moved: () => number;
  /** Bytes that arrived but wait on this host (a slow disk): then a slow window is not the peer's. */
  backlog: () => number;
  /** Called once, with the window's rate, when a window brought less than the floor. */
  onSlow: (bytesPerSec: number) => void;
}

/** Checks each window until the returned stop is called (or the floor is broken once). */
export function watchRateFloor(floor: RateFloor): () => void {
  if (floor.minBytesPerSec <= 0) return () => undefined;
  let last = floor.moved();
  const timer = setInterval(() => {
    const now = floor.moved();
    const moved = now - last;
    last = now;
    if (moved < (floor.minBytesPerSec * floor.windowMs) / 1000 && floor.backlog() === 0) {
      clearInterval(timer);
      floor.onSlow(Math.round((moved * 1000) / floor.windowMs));
    }
  }, floor.windowMs);
  timer.unref();
  return () => clearInterval(timer);
}
