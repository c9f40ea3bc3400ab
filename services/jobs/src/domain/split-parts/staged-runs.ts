// The inputs of another worker's split run, staged once on this worker for all the parts of that
// run it encodes: fetching and checking a long input again for every part would cost each part
// its transfer. Kept while a part uses it and for a short while after (the run's next part usually
// follows at once), then removed; everything goes when the worker stops.
import type { Staged } from '../stages/stage-inputs.js';

/** How long staged inputs wait for the run's next part after the last one ended here. */
export const STAGED_KEEP_MS = 15_000;

interface Entry {
  staged: Promise<Staged>;
  users: number;
  timer?: NodeJS.Timeout;
}

export class StagedRuns {
  private readonly runs = new Map<string, Entry>();

  constructor(
    private readonly remove: (staged: Staged) => Promise<void>,
    private readonly keepMs = STAGED_KEEP_MS,
  ) {}

  /**
   * The run's staged inputs, staged with `stage` if this worker has none (or its staging failed),
   * held until `release` is called.
   */
  async use(runId: string, stage: () => Promise<Staged>): Promise<{ staged: Staged; release: () => void }> {
    let entry = this.runs.get(runId);
    if (!entry) {
      entry = { staged: stage(), users: 0 };
      this.runs.set(runId, entry);
      // A failed staging is not kept: the next part of the run stages afresh.
      entry.staged.catch(() => {
        if (this.runs.get(runId) === entry) this.runs.delete(runId);
      });
    }
    const held = entry;
    held.users++;
    clearTimeout(held.timer);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      held.timer = setTimeout(() => void this.drop(runId, held), this.keepMs);
      held.timer.unref();
    };
    try {
      return { staged: await held.staged, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Removes every run's staged inputs no part uses now (the worker stops: all of them). */
  async clear(): Promise<void> {
    await Promise.all([...this.runs].filter(([, e]) => e.users === 0).map(([runId, e]) => this.drop(runId, e)));
  }

  private async drop(runId: string, entry: Entry): Promise<void> {
    if (entry.users > 0 || this.runs.get(runId) !== entry) return;
    clearTimeout(entry.timer);
    this.runs.delete(runId);
    const staged = await entry.staged.catch(() => null);
    if (staged) await this.remove(staged);
  }
}
