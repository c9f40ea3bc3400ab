// A part's file between Jobs replicas, through Storage (PutPart, GetPart): streamed both ways.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import { PartRefSchema, PutPartRequestSchema, type StorageService } from '@media/proto/media/storage/v1/storage_pb.js';

type Ref = MessageInitShape<typeof PartRefSchema>;

/** Sends the part file at `path` to Storage; resolves with its size. */
export async function putPart(storage: Client<typeof StorageService>, ref: Ref, path: string, signal?: AbortSignal): Promise<number> {
  async function* requests() {
    yield create(PutPartRequestSchema, { part: { case: 'header', value: create(PartRefSchema, ref) } });
    for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 }))
      yield create(PutPartRequestSchema, { part: { case: 'chunk', value: chunk as Buffer } });
  }
  const { size } = await storage.putPart(requests(), signal ? { signal } : {});
  return Number(size);
}

/** Writes the part Storage holds into `path` (its directory made). */
export async function fetchPart(storage: Client<typeof StorageService>, ref: Ref, path: string, signal?: AbortSignal): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const chunks = storage.getPart({ part: ref }, signal ? { signal } : {});
  await pipeline(
    Readable.from(
      (async function* () {
        for await (const { chunk } of chunks) yield chunk;
      })(),
    ),
    createWriteStream(path),
    signal ? { signal } : {},
  );
}
