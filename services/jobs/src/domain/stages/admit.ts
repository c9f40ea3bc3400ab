// Stage 2 of a sync run (after planning): the request is admitted as a job among the account's 50 in progress
// (leased, its lease renewed while it runs), and a worker slot must be free. The slot itself
// is taken only once the inputs are staged (takeSlot), so a slow input holds none while others wait.
import type { TaskPlan } from '@media/media';
import type { Task } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { Errors } from '@media/platform';
import type { Admissions } from '../admissions.js';
import { admissionLease, newJobDoc, type JobDoc, type Principal } from '../job-doc.js';
import type { JobsRepository } from '../ports.js';
import { storedTask } from '../plan.js';
import type { Slots } from '../slots.js';

export interface AdmitDeps {
  repo: JobsRepository;
  slots: Slots;
  parallelJobs: number;
  busyRetryAfterSec: number;
  timeoutMs: number;
  /** This process's admissions (owner, renewed lease); without it, a lease of twice the time limit. */
  admissions?: Admissions;
}

/** An admitted sync job and its hold on a worker slot. */
export interface Admission {
  job: JobDoc;
  /** Takes the slot ffmpeg runs in (throws the 503 if none is free any more). */
  takeSlot: () => void;
  /** Frees the slot (once ffmpeg has exited, or the run ended); idempotent. */
  releaseSlot: () => void;
  /** True when takeSlot found none: the request was not a job that ran. */
  readonly missedSlot: boolean;
  /** Stops renewing the job's lease (its record is final, or left to the lease). */
  end: () => void;
}

/** `submitted`: the task as sent, kept in the job's record for its owner to read back (GetJob). */
export async function admit(deps: AdmitDeps, who: Principal, task: TaskPlan, submitted?: Task): Promise<Admission> {
  const own = deps.admissions;
  const job = newJobDoc(
    who,
    'sync',
    'processing',
    // The task's inputs as sent: not the side files its filters name by file name alone.
    { inputCount: task.inputs.filter((i) => !i.side?.named).length, outputCount: task.outputs.length },
    {
      leaseUntil: admissionLease(own ? own.leaseMs : 2 * deps.timeoutMs),
      ...(own ? { owner: own.owner } : {}),
      ...(submitted ? { task: storedTask(submitted) } : {}),
    },
  );
  if (!(await deps.repo.admit(job, deps.parallelJobs))) throw Errors.tooManyJobs(deps.busyRetryAfterSec, deps.parallelJobs);
  own?.keeper.hold(job._id);
  const end = () => own?.keeper.drop(job._id);
  // A sync run is never stopped for another account (it cannot be requeued); it may stop one
  // (slots.ts). No slot to be had: answer at once, before fetching anything for a run that could not start.
  const claim = { accountId: who.accountId, kind: 'sync' } as const;
  if (!deps.slots.available(claim)) {
    try {
      await deps.repo.remove(job._id);
    } finally {
      end();
    }
    throw Errors.tooBusy(deps.busyRetryAfterSec);
  }
  let release: (() => void) | undefined;
  let missedSlot = false;
  return {
    job,
    takeSlot: () => {
      release = deps.slots.tryAcquire(claim) ?? undefined;
      if (!release) {
        missedSlot = true;
        throw Errors.tooBusy(deps.busyRetryAfterSec);
      }
    },
    releaseSlot: () => release?.(),
    get missedSlot() {
      return missedSlot;
    },
    end,
  };
}
