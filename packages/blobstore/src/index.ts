export * from './types.js';
export { BlobHttpError, BlobRangeError, InvalidBlobKeyError } from './errors.js';
export { assertValidKey, MAX_KEY_BYTES } from './keys.js';
export { LocalSourceRefusedError, openLocalSource, type LocalSource } from './local-source.js';
export { FileWriter, pipelineToFile, type FileWriterOptions } from './file-writer.js';
export { DurableFileWriter, type DurableFileOptions } from './durable-file.js';
export { createLocalDiskBlobStore, type LocalDiskBlobStore, type LocalDiskBlobStoreOptions } from './local-disk.js';
// createS3BlobStore is not re-exported: createBlobStore loads the AWS SDK only for S3.
export type { S3BlobStore, S3BlobStoreOptions } from './s3.js';
export { createSignedBlobHandler, type SignedBlobHooks, type DownloadOverrides, type SignedUrlVerifier } from './signed-handler.js';
export { withListenerUploads } from './listener-uploads.js';
export {
  BLOB_PATH,
  createUrlSigner,
  expiredUrl,
  type SignedClaims,
  type UrlSigner,
  type UrlSignerOptions,
  type VerifyOptions,
} from './url-signing.js';
export { sniffContentType, detectContentType } from './sniff.js';
export { contentDisposition } from './content-disposition.js';
export { guardBlobStore, isBlobStoreOutage, type BlobGuard } from './guard.js';
export { blobStoreConfigFromEnv, createBlobStore, s3OptionsFromEnv, type BlobStoreConfig } from './config.js';
