// The Authorization forms of the spec: "Basic <key>", "Basic base64(<key>)" and
// "Basic base64(<user>:<password>)" with the key as either half. "Basic" in any case.

export function keyPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_[A-Za-z0-9]{40}$`);
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Candidate keys carried by the header (empty when the header holds none). */
export function keysFromAuthorization(header: string, prefix: string): string[] {
  const match = /^basic[ \t]+(\S+)[ \t]*$/i.exec(header.trim());
  if (!match) return [];
  const token = match[1]!;
  const isKey = (s: string) => keyPattern(prefix).test(s);
  if (isKey(token)) return [token];
  if (!BASE64.test(token) || token.length % 4 === 1) return [];
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  if (isKey(decoded)) return [decoded];
  const colon = decoded.indexOf(':');
  if (colon < 0) return [];
  return [decoded.slice(0, colon), decoded.slice(colon + 1)].filter(isKey);
}
