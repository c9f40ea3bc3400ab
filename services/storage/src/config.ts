import { s3OptionsFromEnv } from '@media/blobstore';
import { clientListenerConfig, commonConfig, CROSS_CHECKS, env, internalTokenConfig, type ConfigOf } from '@media/platform';

export const storageConfigSpec = {
  ...commonConfig,
  STORAGE_PORT: env.port(50052),
  /** HTTP/1.1 listener for local-disk signed upload/download URLs. */
  STORAGE_HTTP_PORT: env.port(8081),
  STORAGE_HTTP_HOST: env.string('0.0.0.0'),
  /** Client-reachable base of signed URLs (local disk). Default: http://localhost:<STORAGE_HTTP_PORT>. */
  PUBLIC_BASE_URL: env.optionalUrl(['http:', 'https:']),
  /**
   * The web console's address (its CONSOLE_URL): browsers may send resumable uploads to the signed
   * URLs from its origin only (CORS). Unset: from any origin (the URL's signature is what allows).
   */
  CONSOLE_URL: env.optionalUrl(['http:', 'https:']),
  /** HMAC key for local-disk signed URLs; generated and kept under DATA_DIR when unset. */
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
  /** The S3_* settings together (a bucket name, keys in pairs...), checked before anything starts. */
  [CROSS_CHECKS]: (c: Record<string, unknown>) => {
    try {
      s3OptionsFromEnv(s3Settings(c as StorageConfig));
      return [];
    } catch (err) {
      return [(err as Error).message];
    }
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
