// Which service may call which internal RPC: derived from the code's clients (grep the
// `clients.<svc>.<method>(` and `deps.<svc>.<method>(` calls in gateway/, console/, services/jobs,
// services/probe, services/storage and packages/media/src/staging). A method missing here is open to no one, so a new
// RPC is refused until its callers are written down. grpc.health.v1 is never checked (kubelet
// probes, the ops listener). Auth's admin listener is guarded by AUTH_ADMIN_TOKEN instead.

/** The services that call other services' RPCs, each with a credential of its own. */
export const CALLER_IDENTITIES = ['gateway', 'console', 'jobs', 'probe', 'storage'] as const;
export type CallerIdentity = (typeof CALLER_IDENTITIES)[number];

type Table = Record<string, Record<string, readonly CallerIdentity[]>>;

const gateway = ['gateway'] as const;
const userReads = ['gateway', 'console'] as const;
const staging = ['jobs', 'probe'] as const;

/** Service type name -> method name -> the identities that may call it. */
export const INTERNAL_ACCESS: Table = {
  'media.auth.v1.AuthService': {
    Authenticate: gateway,
    CountRequests: gateway,
    // Storage checks the account's status on each upload request (a signed URL's 5 minutes).
    GetAccount: ['storage'],
    // Signs webhooks; the console shows secrets through the admin listener.
    GetWebhookSecret: ['jobs'],
    BeginIdempotent: gateway,
    RenewIdempotent: gateway,
    FinishIdempotent: gateway,
  },
  'media.storage.v1.StorageService': {
    CreateDirectory: ['gateway', 'jobs'],
    ListDirectories: userReads,
    // Jobs and Probe list a directory while staging its inputs.
    ListFiles: ['gateway', 'console', 'jobs', 'probe'],
    // POST /file, and the console's Files page (an upload URL for the signed-in account).
    RegisterFile: ['gateway', 'console'],
    GetFileInfo: userReads,
    DeleteFile: userReads,
    GetDownload: userReads,
    ResolveFile: staging,
    ReadFile: staging,
    StoreFile: ['jobs'],
    StoreLocalFile: ['jobs'],
    RecordMediaProbe: staging,
    // A split job's encoded parts, passed between Jobs replicas (issue 42).
    PutPart: ['jobs'],
    GetPart: ['jobs'],
    DeleteParts: ['jobs'],
  },
  'media.jobs.v1.JobsService': {
    ProcessSync: gateway,
    SubmitAsync: gateway,
    GetJob: userReads,
    CancelJob: userReads,
    ListJobs: userReads,
    CountActiveJobs: gateway,
    // A probe's admission, counted with the account's jobs.
    AdmitJob: ['probe'],
    FinishJob: ['probe'],
    RenewAdmissions: ['probe'],
  },
  'media.probe.v1.ProbeService': {
    Analyze: gateway,
  },
  'media.billing.v1.BillingService': {
    GetQuota: gateway,
    ListUsage: userReads,
    GetUsageSummary: ['console'],
  },
  // The services' schemas (every service has it): for an operator's grpcurl, with any caller's
  // credential (-H 'x-media-caller: ...' -H 'x-media-caller-token: ...').
  'grpc.reflection.v1.ServerReflection': {
    ServerReflectionInfo: CALLER_IDENTITIES,
  },
};

/** The identities that may call `service`'s `method` (none when it is not in the table). */
export function allowedCallers(service: string, method: string): readonly CallerIdentity[] {
  return INTERNAL_ACCESS[service]?.[method] ?? [];
}

/** The fewest characters a token may have (npm start and the chart make 64 hex digits). */
export const INTERNAL_TOKEN_MIN_LENGTH = 32;

export function checkInternalToken(raw: string): string {
  if (!/^[\x21-\x7e]+$/.test(raw)) throw new Error('printable ASCII, no spaces');
  if (raw.length < INTERNAL_TOKEN_MIN_LENGTH) throw new Error(`${raw.length} characters`);
  return raw;
}

/** `gateway:<sha256 hex>,jobs:<sha256 hex>,...` -> identity -> hash. */
export function parseInternalCallers(raw: string): Map<CallerIdentity, Buffer> {
  const out = new Map<CallerIdentity, Buffer>();
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, hex] = part.split(':');
    if (!CALLER_IDENTITIES.includes(name as CallerIdentity)) throw new Error(`unknown caller "${name}"`);
    if (!hex || !/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`the hash of "${name}" is not 64 hex digits`);
    out.set(name as CallerIdentity, Buffer.from(hex, 'hex'));
  }
  if (out.size === 0) throw new Error('no entry');
  return out;
}
