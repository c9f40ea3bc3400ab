// Choosing and configuring the backend. Only main.ts files read the environment; they pass it here.
import { join } from 'node:path';
import { createLocalDiskBlobStore, type LocalDiskBlobStore, type LocalDiskBlobStoreOptions } from './local-disk.js';
import type { S3BlobStore, S3BlobStoreOptions } from './s3.js';

export interface BlobStoreConfig {
  /** Used when no S3 bucket is configured. */
  local: LocalDiskBlobStoreOptions;
  /** S3 wins when present with a bucket. */
  s3?: S3BlobStoreOptions;
}

/** The AWS SDK is loaded only for S3, so that a local-disk start does not pay its memory and start-up time. */
export async function createBlobStore(config: BlobStoreConfig): Promise<LocalDiskBlobStore | S3BlobStore> {
  if (!config.s3?.bucket) return createLocalDiskBlobStore(config.local);
  const { createS3BlobStore } = await import('./s3.js');
  return createS3BlobStore(config.s3);
}

const S3_VARIABLES = [
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
  'S3_PUBLIC_ENDPOINT',
] as const;

/**
 * Reads S3_* variables. Without S3_BUCKET the local disk under `${dataDir}/blobs` is used (a
 * subdirectory, so other data may share DATA_DIR). Throws an Error naming the variable for any
 * invalid or incomplete setting rather than silently falling back to disk.
 */
export function blobStoreConfigFromEnv(
  env: Record<string, string | undefined>,
  defaults: { dataDir: string; publicBaseUrl: string; signingSecret: string },
): BlobStoreConfig {
  const local: LocalDiskBlobStoreOptions = {
    root: join(defaults.dataDir, 'blobs'),
    publicBaseUrl: defaults.publicBaseUrl,
    signingSecret: defaults.signingSecret,
  };
  const s3 = s3OptionsFromEnv(env);
  return s3 ? { local, s3 } : { local };
}

/**
 * The S3 backend's options from S3_* variables, undefined without S3_BUCKET (the local disk then);
 * throws an Error naming the variable for any invalid or incomplete setting. Also what a config
 * check runs before anything starts.
 */
export function s3OptionsFromEnv(env: Record<string, string | undefined>): S3BlobStoreOptions | undefined {
  const value = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const bucket = value('S3_BUCKET');
  if (!bucket) {
    const stray = S3_VARIABLES.filter((name) => value(name) !== undefined);
    if (stray.length > 0) throw new Error(`S3_BUCKET is required when ${stray.join(', ')} ${stray.length > 1 ? 'are' : 'is'} set.`);
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new Error(`S3_BUCKET "${bucket}" is not a valid bucket name (3 to 63 lower-case letters, digits, dots and hyphens).`);
  }
  const s3: S3BlobStoreOptions = { bucket, region: value('S3_REGION') ?? 'us-east-1' };
  if (!/^[a-z0-9-]+$/.test(s3.region)) throw new Error(`S3_REGION "${s3.region}" is not a valid region name.`);
  const endpoint = httpUrl(value('S3_ENDPOINT'), 'S3_ENDPOINT');
  if (endpoint) s3.endpoint = endpoint;
  const publicEndpoint = httpUrl(value('S3_PUBLIC_ENDPOINT'), 'S3_PUBLIC_ENDPOINT');
  if (publicEndpoint) s3.publicEndpoint = publicEndpoint;
  const accessKeyId = value('S3_ACCESS_KEY_ID');
  const secretAccessKey = value('S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new Error(
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or both left out to use the default AWS credential chain).',
    );
  }
  if (accessKeyId && secretAccessKey) Object.assign(s3, { accessKeyId, secretAccessKey });
  const pathStyle = value('S3_FORCE_PATH_STYLE')?.toLowerCase();
  if (pathStyle !== undefined) {
    if (pathStyle !== 'true' && pathStyle !== 'false')
      throw new Error(`S3_FORCE_PATH_STYLE must be "true" or "false", not "${env.S3_FORCE_PATH_STYLE}".`);
    s3.forcePathStyle = pathStyle === 'true';
  }
  return s3;
}

function httpUrl(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} "${raw}" is not a URL; expected for example http://127.0.0.1:9000.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} "${raw}" must be an http or https URL.`);
  if (url.username || url.password || url.search || url.hash)
    throw new Error(`${name} "${raw}" must not carry credentials, a query or a fragment.`);
  return raw.replace(/\/+$/, '');
}
