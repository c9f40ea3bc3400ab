// A split job's part as a work item (issue 42, item 3): the job's run publishes one record per
// part; the run itself and any Jobs replica with a free slot claim them (with a lease, as jobs),
// encode and hand the part file over through Storage; the run joins them.
import type { PartGeometry, TaskPlan } from '@media/media';
import type { ErrorKind } from '@media/platform';

export type PartStatusName = 'pending' | 'processing' | 'done' | 'failed';

export type PartDoc = {
  /** `${runId}.${index}` */
  _id: string;
  /** The job's run that split it (a run of the job after its worker died is another run). */
  runId: string;
  jobId: string;
  accountId: string;
  /** Its place in the video (geometry.index). */
  index: number;
  /** Its frames (geometry.part.frames): the longest parts are claimed first, so the last to end are short. */
  frames: number;
  /** The worker running the job: it encodes its own parts in its slots and joins them all. */
  ownerId: string;
  status: PartStatusName;
  /**
   * Whether other workers may claim it: not for a run with URL inputs (another fetch could give
   * other bytes), nor once another worker gave it back (it could not stage or encode it there).
   */
  shared: boolean;
  geometry: PartGeometry;
  /** The job's plan and the split input's index among the inputs ffmpeg opens. */
  plan: TaskPlan;
  /** The blobs the run's worker staged its inputs from: another worker encodes the part only from the same. */
  inputBlobs: string[];
  splitInput: number;
  /** The job's time limit: a part is not started past it. */
  deadline: Date;
  workerId: string | null;
  leaseUntil: Date | null;
  /** Starts of the part (a worker that died started it too). */
  attempts: number;
  /** Media seconds of the part's span encoded so far (the job's progress). */
  outTimeSec: number;
  /** The error that ended it (failed): the job ends with it. */
  error: PartError | null;
  createdAt: Date;
  updatedAt: Date;
};

export const partId = (runId: string, index: number) => `${runId}.${index}`;

/** A failed part's error, as the job ends with it (a DomainError's kind and sentence). */
export interface PartError {
  kind: ErrorKind;
  message: string;
}
