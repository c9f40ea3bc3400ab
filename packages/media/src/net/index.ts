// SSRF-safe outbound HTTP for URL inputs and webhooks. See the module files for the rules.
export { type Cidr, type CidrList, EMPTY_CIDR_LIST, allowlistFromEnv, findCidr, parseCidr, parseCidrList } from './cidr.js';
export { type AddressClass, classifyAddress } from './classify.js';
export {
  HostResolutionError,
  type ResolvedTarget,
  type Resolver,
  type UrlCheckDeps,
  checkPublicHttpsUrl,
  describeUrl,
  systemResolver,
} from './url-check.js';
export { type FetchResult, type FetchToFileOptions, MAX_INPUT_BYTES, MAX_REDIRECTS, fetchToFile, urlFileName } from './fetch-to-file.js';
export { type PostJsonOptions, type PostJsonResult, WEBHOOK_TIMEOUT_MS, postJson } from './post-json.js';
export { NetTransportError, type TransportFailureKind } from './transport-error.js';
export { urlTargetConfig } from './url-config.js';
export { MAX_URL_LENGTH } from '../policy/limits.js';
