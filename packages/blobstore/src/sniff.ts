// Media type from the leading bytes (the client's Content-Type is not trusted). file-type knows
// binary formats; plain UTF-8 text without control characters (subtitles, CSV, playlists) is
// reported as text/plain so it is not mistaken for an unknown binary.
import { fileTypeFromBuffer } from 'file-type';
import { SNIFF_BYTES } from './byte-counter.js';
import { BlobNotFoundError, type BlobStore } from './types.js';

export async function detectContentType(head: Buffer): Promise<string | null> {
  if (head.length === 0) return null;
  const detected = await fileTypeFromBuffer(head);
  if (detected) return detected.mime;
  return looksLikeText(head) ? 'text/plain' : null;
}

function looksLikeText(head: Buffer): boolean {
  for (const byte of head) {
    // Tab, LF, CR and ESC are fine; other C0 controls and DEL mean binary.
    if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x1b) || byte === 0x7f) return false;
  }
  try {
    // stream: true tolerates a character cut at the end of the sample.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** Media type of a stored blob, reading only its first bytes (S3 uploads bypass our server). */
export async function sniffContentType(store: BlobStore, key: string): Promise<string | null> {
  // Size first: a range on an empty object is an error on S3 (and breaks s3rver's connection).
  const head = await store.head(key);
  if (!head) throw new BlobNotFoundError(key);
  if (head.size === 0) return null;
  const stream = await store.get(key, { start: 0, end: Math.min(head.size, SNIFF_BYTES) - 1 });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return detectContentType(Buffer.concat(chunks));
}
