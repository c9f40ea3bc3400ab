// S3_UPLOADS=storage: the S3 store with the Storage listener's signed upload URLs instead of
// presigned S3 PUTs (uploads stream through the service, which also speaks tus on them);
// downloads stay presigned S3 GETs.
import type { BlobStore } from './types.js';
import type { UrlSigner } from './url-signing.js';

export function withListenerUploads<T extends BlobStore>(store: T, signer: UrlSigner): T {
  return { ...store, signUpload: async (key, options) => signer.signUpload(key, options) };
}
