// NATS_URL -> connect options. The NATS client keeps only host and port of each server URL: it
// drops `user:pass@` and ignores the scheme. So credentials are lifted out here, and `tls://`
// makes TLS required (without it, a server that does not ask for TLS would get plain text).
import type { ConnectionOptions } from '@nats-io/nats-core';

export type NatsConnectOptions = Pick<ConnectionOptions, 'servers' | 'user' | 'pass' | 'token' | 'tls'>;

const SCHEMES = ['nats:', 'tls:'];

/**
 * One URL or a comma-separated list of seed servers (`nats://n1:4222,nats://n2:4222`). Credentials
 * are `user:password@` or `token@`, percent-encoded, the same on every URL that has any.
 * Throws an Error saying what is wrong.
 */
export function natsConnectOptions(natsUrl: string): NatsConnectOptions {
  const parts = natsUrl
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error('no server given');
  const servers: string[] = [];
  let auth: string | undefined;
  let credentials: Pick<NatsConnectOptions, 'user' | 'pass' | 'token'> = {};
  let tls = false;
  for (const part of parts) {
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(part)?.[1]?.toLowerCase();
    if (scheme === undefined) throw new Error('each server must start with nats:// or tls://');
    if (!SCHEMES.includes(`${scheme}:`)) throw new Error(`"${scheme}://" is not supported (nats:// or tls://)`);
    let url: URL;
    try {
      url = new URL(part);
    } catch {
      throw new Error('a server URL does not parse (a password with "/", "@", ":" or "," must be percent-encoded)');
    }
    if (!url.hostname) throw new Error(`a server URL names no host`);
    if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash)
      throw new Error(`${url.host} has a path or query; give only [user:password@]host[:port]`);
    tls ||= url.protocol === 'tls:';
    if (url.username || url.password) {
      const here = `${url.username}:${url.password}`;
      if (auth !== undefined && auth !== here) throw new Error('the servers give different credentials');
      auth = here;
      const user = decodeURIComponent(url.username);
      credentials = url.password ? { user, pass: decodeURIComponent(url.password) } : { token: user };
    }
    servers.push(`${url.hostname}:${url.port || '4222'}`);
  }
  return { servers, ...credentials, ...(tls ? { tls: {} } : {}) };
}
