// Content-Disposition with an ASCII fallback and the exact name in filename* (RFC 6266, RFC 5987).

export function contentDisposition(fileName: string, type: 'attachment' | 'inline' = 'attachment'): string {
  // Quoted-string fallback for old clients: non-ASCII, quotes, backslashes and controls become "_".
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/gu, '_');
  // encodeURIComponent leaves ' ( ) * ! which RFC 5987's attr-char does not allow.
  const encoded = encodeURIComponent(fileName).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return fallback === fileName && encoded === fileName
    ? `${type}; filename="${fileName}"`
    : `${type}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
