// Downloads a URL input to a file, SSRF-safe: every hop (the URL and each redirect) is checked and
// the connection pinned to the checked addresses; the body is streamed to disk and counted, never
// held in memory; over-size bodies are refused before (Content-Length) or while (counted) reading.
import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { FileWriter, pipelineToFile } from '@media/blobstore';
import { DEFAULT_URL_MIN_BYTES_PER_SEC, DomainError, Errors, isNoSpace, MAX_FILE_BYTES, metrics, watchRateFloor } from '@media/platform';
import type { Dispatcher } from 'undici';
import { visible } from '../policy/refuse.js';
import type { CidrList } from './cidr.js';
import { startDeadline } from './deadline.js';
import { pinnedAgent } from './pinned-agent.js';
import { undici } from './undici.js';
import { toTransportError, timeoutError } from './transport-error.js';
import { type Resolver, type ResolvedTarget, checkPublicHttpsUrl, describeUrl, parseUrl } from './url-check.js';

export const MAX_INPUT_BYTES = MAX_FILE_BYTES; // the spec's 5 GB file limit
export const MAX_REDIRECTS = 5;

export interface FetchToFileOptions {
  allowlist?: CidrList;
  resolver?: Resolver;
  /** Extra trusted CA (PEM); tests only. */
  ca?: string | Buffer;
  /** Default MAX_FILE_BYTES (5 GB). */
  maxBytes?: number;
  /** Default 5; one more redirect is refused without being contacted. */
  maxRedirects?: number;
  /** Total time for DNS, all hops and the whole body. Default 30 minutes. */
  timeoutMs?: number;
  /** Per TCP+TLS connect. Default 10 s. */
  connectTimeoutMs?: number;
  /** Name used in the 403 size text; default: last path segment of the URL. */
  fileNameForErrors?: string;
  /** Cancels the download (e.g. job cancelled); rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The body must bring at least this many bytes a second, averaged over each window (default
   * 60 s), or the download fails (400, nothing charged): a URL that trickles would otherwise hold
   * its job for the whole time limit. Default 16 KiB/s; 0: no floor.
   */
  minBytesPerSec?: number;
  rateWindowMs?: number;
}

export const URL_RATE_WINDOW_MS = 60_000;

/** The body brought less than the floor in a window. */
class TooSlow extends Error {
  constructor(
    readonly bytesPerSec: number,
    readonly floor: number,
  ) {
    super('too slow');
  }
}

export interface FetchResult {
  size: number;
  contentType?: string;
  /** The URL of the hop that answered 2xx (after redirects). */
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/**
 * Body bytes buffered while a write is on its way to disk. 1 GB over loopback HTTPS, by hand:
 * 404-439 MB/s at FileWriter's 256 KB, 576-741 MB/s at 1 MB, with RSS growth no larger.
 */
const WRITE_BUFFER_BYTES = 1 << 20;

class BodyTooLarge extends Error {
  constructor(readonly seen: number) {
    super('body exceeds the size limit');
  }
}

/**
 * The name a URL input goes by in error texts: its last path segment, percent-decoded, else the
 * host. The name only labels the file, so a broken escape (%E0%A4%A) keeps the segment as written
 * instead of failing the task; control characters (%0A) are shown as \uXXXX, as in refusals.
 */
export function urlFileName(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  const segment = path.slice(path.lastIndexOf('/') + 1);
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // URIError: not valid percent-encoded UTF-8; the raw segment still says which file it was.
  }
  const chars = [...visible(name || url.hostname)];
  return chars.slice(0, 255).join('');
}

/** A refused redirect names the hop it came from, so users see why their URL failed. */
async function checkHop(url: URL, redirected: boolean, opts: FetchToFileOptions, signal: AbortSignal): Promise<ResolvedTarget> {
  try {
    return await checkPublicHttpsUrl(url, { allowlist: opts.allowlist, resolver: opts.resolver, signal });
  } catch (err) {
    if (!redirected || !(err instanceof DomainError)) throw err;
    throw Errors.invalidRequest(`Redirect to ${describeUrl(url)} refused: ${err.message}`);
  }
}

function redirectTarget(res: Dispatcher.ResponseData, from: URL): URL {
  const location = res.headers.location;
  if (typeof location !== 'string' || location === '') {
    throw Errors.invalidRequest(`URL input could not be fetched: HTTP ${res.statusCode} redirect without one Location header`);
  }
  try {
    return new URL(location, from);
  } catch {
    throw Errors.invalidRequest(`URL input could not be fetched: invalid redirect Location from ${describeUrl(from)}`);
  }
}

/** Drops a body we will not read (the Agent is destroyed right after); its abort error is expected. */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => {});
  res.body.destroy();
}

function contentLength(res: Dispatcher.ResponseData): number | undefined {
  const raw = res.headers['content-length'];
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/** Streams the body into `tmp`, counting bytes; throws BodyTooLarge past maxBytes, TooSlow under the floor. */
async function streamBody(
  res: Dispatcher.ResponseData,
  tmp: string,
  maxBytes: number,
  signal: AbortSignal,
  floor: { minBytesPerSec: number; windowMs: number },
): Promise<number> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > maxBytes) cb(new BodyTooLarge(size));
      else cb(null, chunk);
    },
  });
  const stopWatch = watchRateFloor({
    ...floor,
    moved: () => size,
    // Bytes waiting to be written are this host's delay (a slow disk), not the URL's.
    backlog: () => res.body.readableLength + counter.readableLength + counter.writableLength,
    onSlow: (rate) => counter.destroy(new TooSlow(rate, floor.minBytesPerSec)),
  });
  try {
    // The body's chunks are its own (one per TLS record): freed once written, not left to the GC.
    await pipelineToFile([res.body, counter], new FileWriter(tmp, { freeWritten: true, highWaterMark: WRITE_BUFFER_BYTES }), { signal });
  } finally {
    stopWatch();
  }
  return size;
}

/**
 * Downloads `url` to `destPath`. Errors: 400 DomainError for refused URLs or redirects, too many
 * redirects, non-2xx answers, network failures and the total timeout (all faults of the URL the
 * user gave); 403 `Errors.fileTooLarge` over maxBytes. Nothing is left at destPath on failure.
 */
export async function fetchToFile(url: string, destPath: string, opts: FetchToFileOptions = {}): Promise<FetchResult> {
  const maxBytes = opts.maxBytes ?? MAX_INPUT_BYTES;
  const maxRedirects = opts.maxRedirects ?? MAX_REDIRECTS;
  const timeoutMs = opts.timeoutMs ?? 30 * 60_000;
  // Loaded before the clock starts: the time limit is the network exchange's, not the first load's.
  const { request } = await undici();
  const deadline = startDeadline(timeoutMs, opts.signal);
  const tmp = `${destPath}.part-${randomBytes(6).toString('hex')}`;
  try {
    let current = parseUrl(url);
    for (let redirects = 0; ; redirects += 1) {
      const target = await checkHop(current, redirects > 0, opts, deadline.signal);
      const agent = await pinnedAgent(target, { ca: opts.ca, connectTimeoutMs: opts.connectTimeoutMs ?? 10_000, timeoutMs });
      try {
        const res = await request(target.url, {
          dispatcher: agent,
          method: 'GET',
          headers: { 'user-agent': 'media-service-fetcher', 'accept-encoding': 'identity' },
          signal: deadline.signal,
        });
        if (REDIRECT_STATUSES.has(res.statusCode)) {
          discard(res);
          if (redirects >= maxRedirects) throw Errors.invalidRequest(`Too many redirects (more than ${maxRedirects})`);
          current = redirectTarget(res, target.url);
          continue;
        }
        if (res.statusCode < 200 || res.statusCode > 299) {
          discard(res);
          throw Errors.invalidRequest(`URL input could not be fetched: HTTP ${res.statusCode} from ${describeUrl(target.url)}`);
        }
        const name = opts.fileNameForErrors ?? urlFileName(target.url);
        const declared = contentLength(res);
        if (declared !== undefined && declared > maxBytes) {
          discard(res);
          throw Errors.fileTooLarge(name, declared);
        }
        let size: number;
        try {
          size = await streamBody(res, tmp, maxBytes, deadline.signal, {
            minBytesPerSec: opts.minBytesPerSec ?? DEFAULT_URL_MIN_BYTES_PER_SEC,
            windowMs: opts.rateWindowMs ?? URL_RATE_WINDOW_MS,
          });
        } catch (err) {
          if (err instanceof BodyTooLarge) throw Errors.fileTooLarge(name, err.seen);
          if (err instanceof TooSlow) {
            throw Errors.invalidRequest(
              `URL input could not be fetched: ${describeUrl(target.url)} sent ${err.bytesPerSec} bytes a second, under the minimum of ${err.floor} (averaged over a minute)`,
            );
          }
          throw err;
        }
        await rename(tmp, destPath);
        const type = res.headers['content-type'];
        metrics.bytes.inc({ direction: 'fetched' }, size);
        return { size, contentType: typeof type === 'string' ? type : undefined, finalUrl: target.url.href };
      } finally {
        await agent.destroy().catch(() => {});
      }
    }
  } catch (err) {
    await rm(tmp, { force: true });
    if (err instanceof DomainError) throw err;
    // Our disk, not the URL: the service's 503 (an async job waits for space).
    if (isNoSpace(err)) throw Errors.diskFull();
    if (opts.signal?.aborted && !deadline.expired) throw opts.signal.reason;
    const te = deadline.expired ? timeoutError(timeoutMs, err) : toTransportError(err);
    throw Errors.invalidRequest(`URL input could not be fetched: ${te.message}`);
  } finally {
    deadline.dispose();
  }
}
