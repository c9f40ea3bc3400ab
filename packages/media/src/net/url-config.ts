// The settings of outbound URLs (URL inputs, webhooks) that Jobs and Probe both read, checked
// with the rest of their configuration before anything starts.
import { env } from '@media/platform';
import { parseCidrList } from './cidr.js';

export const urlTargetConfig = {
  /** Address ranges treated as public for URL inputs and webhooks (tests only), e.g. "127.0.0.2/32". */
  URL_ALLOWLIST_CIDRS: env.checked((raw) => (parseCidrList(raw), raw ?? ''), 'comma-separated address ranges such as 127.0.0.2/32'),
  /** PEM file of extra CAs trusted for URL inputs and webhooks (tests, private PKI). */
  URL_CA_FILE: env.optionalReadableFile(),
};
