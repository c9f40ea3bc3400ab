// Every input is staged into the job's own work directory before ffmpeg or ffprobe starts, so
// ffmpeg only ever opens files the service put there: uploaded files through Storage (a hard link
// when Storage shares this disk, a copy across filesystems, a stream otherwise), URLs through the
// SSRF-safe fetcher.
import type { ForkServerPool } from '@media/fork-server';
import { copyFile, link, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Client } from '@connectrpc/connect';
import { FileWriter } from '@media/blobstore';
import { Errors, MAX_FILE_BYTES } from '@media/platform';
import type { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { checkPublicHttpsUrl, fetchToFile, urlFileName, type CidrList } from '../net/index.js';

/** Where an input comes from (after validation). */
export type StageableInput = { kind: 'uploaded'; dirId: string; fileName: string } | { kind: 'url'; url: string };

export { MAX_FILE_BYTES } from '@media/platform';

export interface ResolvedInput {
  input: StageableInput;
  /** Display name for errors. */
  name: string;
  /** Known before staging for uploaded files. */
  size?: number;
  localPath?: string;
  /** Uploaded inputs: the blob resolved, and the verdict recorded for it (see media-probe.ts). */
  blobKey?: string;
  mediaProbe?: string;
}

export interface StagingDeps {
  storage: Client<typeof StorageService>;
  allowlist: CidrList;
  ca?: string;
  timeoutMs: number;
  /** URL inputs: the least transfer rate, in bytes a second over a minute (default 16 KiB/s). */
  urlMinBytesPerSec?: number;
  /** The owner's fork servers, for the probes that admit each input. */
  forkServers?: ForkServerPool;
}

/** Before admission: uploaded inputs exist (404) and are within 5 GB (403). Cheap, no bytes moved. */
export async function resolveInputs(deps: StagingDeps, accountId: string, inputs: StageableInput[]): Promise<ResolvedInput[]> {
  return Promise.all(
    inputs.map(async (input): Promise<ResolvedInput> => {
      if (input.kind === 'url') {
        // Refuse non-public targets before admission; the fetch checks again and pins the address.
        await checkPublicHttpsUrl(input.url, { allowlist: deps.allowlist });
        return { input, name: urlFileName(new URL(input.url)) };
      }
      const res = await deps.storage.resolveFile({ file: { accountId, dirId: input.dirId, fileName: input.fileName } });
      const size = Number(res.fileInfo!.fileSize);
      if (size > MAX_FILE_BYTES) throw Errors.fileTooLarge(input.fileName, size);
      return { input, name: input.fileName, size, localPath: res.localPath, blobKey: res.blobKey, mediaProbe: res.mediaProbe };
    }),
  );
}

/** Stages input i as `in/<i>` under workDir; returns its size in bytes. */
export async function stageInput(
  deps: StagingDeps,
  accountId: string,
  workDir: string,
  i: number,
  r: ResolvedInput,
  signal?: AbortSignal,
): Promise<number> {
  await mkdir(join(workDir, 'in'), { recursive: true });
  return stageFile(deps, accountId, join(workDir, 'in', String(i)), r, signal);
}

/** Stages one resolved file at `dest` (its directory exists); returns its size in bytes. */
export async function stageFile(
  deps: StagingDeps,
  accountId: string,
  dest: string,
  r: ResolvedInput,
  signal?: AbortSignal,
): Promise<number> {
  if (r.input.kind === 'url') {
    const got = await fetchToFile(r.input.url, dest, {
      allowlist: deps.allowlist,
      ca: deps.ca,
      maxBytes: MAX_FILE_BYTES,
      timeoutMs: deps.timeoutMs,
      fileNameForErrors: r.name,
      signal,
      ...(deps.urlMinBytesPerSec === undefined ? {} : { minBytesPerSec: deps.urlMinBytesPerSec }),
    });
    return got.size;
  }
  if (r.localPath) {
    // A hard link first: no bytes copied, and no freshly written pages whose writeback competes
    // with the encode (a copied 4 MB input made a 2 s x264 run about 3% slower). ffmpeg only
    // reads inputs: outputs go to out/ and it never overwrites (-n). Another filesystem: a copy.
    try {
      await link(r.localPath, dest);
      return r.size!;
    } catch {
      try {
        await copyFile(r.localPath, dest);
        return r.size!;
      } catch {
        // Not on this host after all: fall back to streaming through Storage.
      }
    }
  }
  const chunks = deps.storage.readFile({ file: { accountId, dirId: r.input.dirId, fileName: r.input.fileName } }, { signal });
  const source = Readable.from(
    (async function* () {
      for await (const m of chunks) yield m.chunk;
    })(),
  );
  await pipeline(source, new FileWriter(dest, { flags: 'w' }));
  return r.size!;
}
