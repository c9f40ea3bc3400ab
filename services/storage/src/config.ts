import { s3OptionsFromEnv } from '@media/blobstore';
import { clientListenerConfig, commonConfig, CROSS_CHECKS, env, internalTokenConfig, type ConfigOf } from '@media/platform';

export const storageConfigSpec = {
  ...commonConfig,
  STORAGE_PORT: env.port(50052),
  /** HTTP/1.1 listener for signed URLs: local disk (uploads, downloads), S3 with S3_UPLOADS=storage (uploads). */
  STORAGE_HTTP_PORT: env.port(8081),
  STORAGE_HTTP_HOST: env.string('0.0.0.0'),
  /** Client-reachable base of the listener's signed URLs. Default: http://localhost:<STORAGE_HTTP_PORT>. */
  PUBLIC_BASE_URL: env.optionalUrl(['http:', 'https:']),
  /** The web console's address (its CONSOLE_URL), named in the account-state refusals. */
  CONSOLE_URL: env.optionalUrl(['http:', 'https:']),
  /**
   * Comma-separated origins (e.g. https://console.example.com,https://app.example.com) whose web
   * pages may upload to the signed URLs (CORS). Unset: any origin, the URL's signature being what
   * authorises an upload.
   */
  UPLOAD_CORS_ORIGINS: env.optionalString(),
  /**
   * HMAC key of the listener's signed URLs; generated and kept under DATA_DIR when unset (local
   * disk only: required with S3_UPLOADS=storage, where replicas must accept each other's URLs).
   */
  BLOB_SIGNING_SECRET: env.optionalString(),
  /** Auth, asked for an account's status on each upload request (its GetAccount RPC). */
  AUTH_URL: env.url('http://127.0.0.1:50051'),
  /** Sent with every call to Auth, which checks it against INTERNAL_CALLERS. */
  ...internalTokenConfig,
  /**
   * Seconds an account's status is reused for upload requests; a change announced by Auth (its
   * account status event) applies at once, this bounds the wait should the event be lost.
   */
  ACCOUNT_STATUS_CACHE_SEC: env.int(5, 0, 60),
  /** Named in a suspended account's sentence, as Auth names it (the same variable). */
  SUPPORT_CONTACT: env.string('support@example.com'),
  SWEEP_INTERVAL_SEC: env.int(300, 1, 86_400),
  ...clientListenerConfig,
  /** A signed-URL upload must average at least this many bytes a second over each minute, or it is cut (0: no floor). */
  UPLOAD_MIN_BYTES_PER_SEC: env.int(1024, 0, 1_000_000_000),
  /**
   * The Jobs work directory (Jobs' WORK_DIR) as seen from this host: finished outputs under it are
   * stored in place (hard link or local copy) instead of streamed over RPC, on the local-disk
   * backend. Default DATA_DIR/jobs/work (Jobs' default); "off" streams every output.
   */
  JOBS_WORK_DIR: env.optionalString(),
  S3_ENDPOINT: env.optionalString(),
  S3_REGION: env.optionalString(),
  S3_BUCKET: env.optionalString(),
  S3_ACCESS_KEY_ID: env.optionalString(),
  S3_SECRET_ACCESS_KEY: env.optionalString(),
  S3_FORCE_PATH_STYLE: env.optionalString(),
  S3_PUBLIC_ENDPOINT: env.optionalString(),
  /**
   * How uploads reach S3: `direct` (a presigned S3 PUT, no resumable uploads, no listener) or
   * `storage` (upload URLs are this service's listener's: the plain PUT streams through Storage
   * into S3, and tus uploads resume). Only with S3_BUCKET.
   */
  S3_UPLOADS: env.oneOf(['direct', 'storage'] as const, 'direct'),
  /**
   * With S3_UPLOADS=storage: upload requests (plain PUT, tus POST and PATCH) one replica serves at
   * once; more are answered 503 with Retry-After before any byte is read. Each holds up to two
   * 8 MiB parts and a tail under 5 MiB in TMPDIR (tus), or an 8 MiB part in memory (plain PUT):
   * 16 take at most 16 x 21 MiB = 336 MiB of TMPDIR, or 128 MiB of memory.
   */
  S3_UPLOADS_IN_FLIGHT: env.int(16, 1, 10_000),
  /** With S3_UPLOADS=storage: of those, how many one client address may have (0: no cap; behind a proxy every request comes from it). */
  S3_UPLOADS_PER_ADDRESS: env.int(8, 0, 10_000),
  /** The S3_* settings together (a bucket name, keys in pairs...), checked before anything starts. */
  [CROSS_CHECKS]: (c: Record<string, unknown>) => {
    const config = c as StorageConfig;
    const problems: string[] = [];
    try {
      s3OptionsFromEnv(s3Settings(config));
    } catch (err) {
      problems.push((err as Error).message);
    }
    problems.push(...s3UploadsProblems(config));
    try {
      uploadCorsOrigins(config);
    } catch (err) {
      problems.push((err as Error).message);
    }
    return problems;
  },
};
export type StorageConfig = ConfigOf<typeof storageConfigSpec>;

/** The S3_* variables, as the blob store reads them. */
export const s3Settings = (c: StorageConfig) => ({
  S3_ENDPOINT: c.S3_ENDPOINT,
  S3_REGION: c.S3_REGION,
  S3_BUCKET: c.S3_BUCKET,
  S3_ACCESS_KEY_ID: c.S3_ACCESS_KEY_ID,
  S3_SECRET_ACCESS_KEY: c.S3_SECRET_ACCESS_KEY,
  S3_FORCE_PATH_STYLE: c.S3_FORCE_PATH_STYLE,
  S3_PUBLIC_ENDPOINT: c.S3_PUBLIC_ENDPOINT,
});

/** S3_UPLOADS=storage's own requirements. */
function s3UploadsProblems(c: StorageConfig): string[] {
  if (c.S3_UPLOADS !== 'storage') return [];
  if (!c.S3_BUCKET?.trim()) return ['S3_UPLOADS=storage applies to the S3 backend only: set S3_BUCKET, or leave S3_UPLOADS unset.'];
  if (!c.BLOB_SIGNING_SECRET) {
    return [
      'S3_UPLOADS=storage needs BLOB_SIGNING_SECRET: every Storage replica must accept the upload URLs the others sign, so set the same random value (e.g. `openssl rand -base64 32`) on all of them.',
    ];
  }
  return [];
}

/** Whether upload URLs are the listener's (local disk, or S3 with S3_UPLOADS=storage) rather than presigned S3 PUTs. */
export const uploadsThroughListener = (c: StorageConfig): boolean => !c.S3_BUCKET?.trim() || c.S3_UPLOADS === 'storage';

/** UPLOAD_CORS_ORIGINS as a list of origins; undefined for any. Throws a sentence naming a bad entry. */
export function uploadCorsOrigins(c: Pick<StorageConfig, 'UPLOAD_CORS_ORIGINS'>): string[] | undefined {
  const entries = c.UPLOAD_CORS_ORIGINS?.split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (!entries?.length) return undefined;
  return entries.map((entry) => {
    let origin: string | undefined;
    try {
      origin = new URL(entry).origin;
    } catch {}
    if (origin !== entry.replace(/\/$/, ''))
      throw new Error(`UPLOAD_CORS_ORIGINS: ${entry} is not an origin; give scheme, host and port only, e.g. https://app.example.com`);
    return origin;
  });
}
