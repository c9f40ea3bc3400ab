// What the run records, in memory, for the invariants (pure functions over it) and the report.

/** What a request was for. `final` ones are the end checks', `burst` the limits' probes. */
export type Op =
  | 'setup'
  | 'sync'
  | 'async'
  | 'probe'
  | 'file'
  | 'put'
  | 'download'
  | 'get'
  | 'usage'
  | 'burst-rate'
  | 'burst-jobs'
  | 'final';

/** One request and its answer (or its lack of one). */
export interface Call {
  op: Op;
  /** The account's label (a0, a1...). */
  account: string;
  method: string;
  /** The path (API) or `signed-url`. */
  path: string;
  startMs: number;
  endMs: number;
  /** Undefined: no answer (a timeout or a transport error). */
  status?: number;
  /** The error text of a JSON error body, or the transport error. */
  error?: string;
  retryAfter?: string | null;
  /** No answer within the client's timeout: a hang. */
  timedOut?: boolean;
  /** The connection failed or was reset before an answer. */
  transportError?: string;
  /** The answer was not the service's JSON (e.g. the balancer's own page). */
  notJson?: boolean;
  /** The job id or request id the answer carried (202, sync 200, probe 200). */
  requestId?: string;
}

export interface Upload {
  account: string;
  filePath: string;
  sha256: string;
  /** The PUT to the signed URL answered 200. */
  acknowledged: boolean;
  atMs: number;
}

export interface DownloadCheck {
  account: string;
  filePath: string;
  /** What was found: the bytes matched, differed, or could not be read (and why). */
  outcome: 'same' | 'different' | 'unreadable';
  detail?: string;
  /** During the load, or in the end checks. */
  when: 'load' | 'final';
}

export interface WebhookDelivery {
  account: string;
  atMs: number;
  headers: Record<string, string>;
  body: string;
}

export interface FaultRecord {
  kind: string;
  targets: string[];
  startMs: number;
  endMs: number;
  error?: string;
}

/** A job as GET /jobs lists it at the end. */
export interface FinalJob {
  account: string;
  id: string;
  status: string;
}

/** A row of GET /account/usage (JSON). */
export interface UsageRow {
  account: string;
  request_id: string;
  completed_at: string;
  key_id: string;
  gb_sec: number;
  amount_usd: number;
}

/** The limits' probes: a burst of requests on one key, and of slow async jobs on one account. */
export interface LimitProbes {
  /** Requests sent at once on one key; `durationMs` from the first sent to the last answered. */
  rate?: { account: string; limit: number; sent: number; admitted: number; refused: number; durationMs: number };
  /** Paced async jobs submitted at once on one account; the accepted ones' ids, and when the last answer came. */
  jobs?: { account: string; limit: number; sent: number; accepted: string[]; refused: number; lastAnswerMs: number };
}

export interface RunData {
  startedMs: number;
  loadEndMs: number;
  calls: Call[];
  uploads: Upload[];
  downloads: DownloadCheck[];
  webhooks: WebhookDelivery[];
  faults: FaultRecord[];
  /** Every account's webhook secret, by label. */
  secrets: Record<string, string>;
  finalJobs: FinalJob[];
  usage: UsageRow[];
  limits: LimitProbes;
  /** Processes that exited on their own (not killed or stopped by a fault), with how. */
  crashes: string[];
  /** Directory listings at the end: each file listed, and whether it could be read. */
  listed: { account: string; filePath: string; readable: boolean; detail?: string }[];
}
