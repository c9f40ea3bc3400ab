// Another job's part, encoded in a free slot of this worker (issue 42, item 3): the job's inputs
// staged here from Storage, the part encoded with the job's own options (encodeSplitPart), its file
// handed to Storage for the job's worker to join. The part's lease is renewed while it runs; once
// the record is gone (the job's run ended) or no longer this worker's, the encode stops.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeSplitPart, resolvePlan, SPLIT_DIR } from '@media/media';
import { Errors, isRetryableFault } from '@media/platform';
import { renewEveryMs } from '../job-doc.js';
import type { ProcessDeps } from '../process.js';
import { inputBlobs, runOptions } from '../stages/run.js';
import { stageInputs, type Staged } from '../stages/stage-inputs.js';
import type { PartDoc } from './part-doc.js';
import type { SplitPartsDeps } from './split-parts-deps.js';
import type { StagedRuns } from './staged-runs.js';
import { putPart } from './transfer.js';

/** The abort reason when the part is no longer this worker's. */
const GONE = Symbol('part gone');

export interface RemotePartRequest {
  doc: PartDoc;
  workerId: string;
  /** This worker's staged inputs of other workers' runs (one staging per run). */
  stagedRuns: StagedRuns;
  /** Stops the encode (this worker is stopping): the part goes back to pending, not counted as a start. */
  signal: AbortSignal;
}

/** 'outage': a dependency failed under it (the part went back); the worker waits before taking another. */
export async function runRemotePart(
  deps: ProcessDeps & { splitParts: SplitPartsDeps },
  req: RemotePartRequest,
): Promise<'done' | 'outage'> {
  const { doc, workerId } = req;
  const { parts, leaseMs } = deps.splitParts;
  const abort = new AbortController();
  const stop = () => abort.abort(req.signal.reason);
  req.signal.addEventListener('abort', stop, { once: true });
  let outTimeSec = 0;
  const beat = setInterval(() => {
    void parts
      .heartbeat(doc._id, workerId, new Date(Date.now() + leaseMs), outTimeSec)
      .then((ours) => {
        if (!ours) abort.abort(GONE);
      })
      .catch(() => undefined);
  }, renewEveryMs(leaseMs));
  const who = { jobId: doc.jobId, part: doc.index, runId: doc.runId };
  let held: { staged: Staged; release: () => void } | undefined;
  let partDir: string | undefined;
  try {
    deps.logger.debug(who, 'staging the inputs of a part for another worker');
    held = await req.stagedRuns.use(doc.runId, async () => {
      const resolved = await resolvePlan(deps, doc.accountId, doc.plan);
      // A file replaced or deleted since the run's worker staged it: not the bytes the other parts come from.
      if (inputBlobs(resolved).join('\n') !== doc.inputBlobs.join('\n'))
        throw new Error("the job's inputs changed since its worker staged them");
      return stageInputs(deps, { accountId: doc.accountId, jobId: doc.jobId, resolved, signal: abort.signal });
    });
    const { staged } = held;
    const timeoutMs = doc.deadline.getTime() - Date.now();
    if (timeoutMs <= 0) throw Errors.timedOut();
    deps.logger.info(who, `encoding part ${doc.index} of job ${doc.jobId} for another worker`);
    const options = await runOptions(deps, {
      accountId: doc.accountId,
      jobId: doc.jobId,
      task: doc.plan,
      staged,
      timeoutMs,
      signal: abort.signal,
    });
    partDir = join(staged.workDir, SPLIT_DIR, `p${doc.index}`);
    const { path } = await encodeSplitPart({
      ...options,
      onProgress: (p) => (outTimeSec = p.outTimeSec),
      splitInput: doc.splitInput,
      ...doc.geometry,
    });
    const ref = { jobId: doc.jobId, runId: doc.runId, index: doc.index };
    await putPart(deps.storage, ref, path, abort.signal);
    if (await parts.finish(doc._id, workerId, { status: 'done' })) {
      deps.logger.info(who, `ran part ${doc.index} of job ${doc.jobId} for another worker`);
    } else if (!(await parts.exists(doc._id).catch(() => true))) {
      // The run ended while the part went to Storage (after its own clean-up): nothing would remove it.
      await deps.storage.deleteParts({ jobId: doc.jobId, runId: doc.runId }).catch(() => undefined);
    }
    return 'done';
  } catch (err) {
    if (abort.signal.reason === GONE) return 'done'; // the run ended, or the part went to another worker
    if (req.signal.aborted) {
      await parts.release(doc._id, workerId, { uncounted: true }).catch(() => undefined);
      return 'done';
    }
    // Whatever failed here (its inputs could not be staged, a dependency, the disk, this ffmpeg),
    // the run's own worker, which has the inputs, encodes the part: were the task at fault, it
    // fails there as the whole run would, with its own error.
    const outage = isRetryableFault(err);
    if (!outage) deps.logger.warn({ ...who, err }, 'a part of another worker could not be encoded here; it goes back to that worker');
    await parts.release(doc._id, workerId, { ownerOnly: true }).catch(() => undefined);
    return outage ? 'outage' : 'done';
  } finally {
    clearInterval(beat);
    req.signal.removeEventListener('abort', stop);
    if (partDir) await rm(partDir, { recursive: true, force: true });
    held?.release();
  }
}
