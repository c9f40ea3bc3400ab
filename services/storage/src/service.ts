import { Readable } from 'node:stream';
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { BlobStore } from '@media/blobstore';
import {
  DirectorySchema,
  DownloadInstructionSchema,
  FileEntrySchema,
  type StorageService,
  type StoreFileHeader,
  type FileRef,
  type PartRef,
} from '@media/proto/media/storage/v1/storage_pb.js';
import { Errors, toTimestamp } from '@media/platform';
import type { DirectoryDoc, FileDoc } from './domain/ports.js';
import { DOWNLOAD_URL_TTL_SEC, RESULT_URL_TTL_SEC } from './domain/rules.js';
import type { Parts } from './domain/parts.js';
import { filePath, type Storage, type StoreBody } from './domain/storage.js';

const directoryMessage = (d: DirectoryDoc) =>
  create(DirectorySchema, { id: d._id, ttl: d.ttl, addedOn: toTimestamp(d.createdAt), expiresAt: toTimestamp(d.expiresAt) });

const fileMessage = (f: FileDoc) =>
  create(FileEntrySchema, {
    dirId: f.dirId,
    fileName: f.fileName,
    filePath: filePath(f),
    addedOn: toTimestamp(f.addedOn),
    uploaded: f.state === 'uploaded',
  });

const fileInfo = (f: FileDoc) => ({ filePath: filePath(f), fileType: f.contentType ?? undefined, fileSize: BigInt(f.size) });

function ref(r: FileRef | undefined): FileRef {
  if (!r) throw Errors.invalidRequest('file is required');
  return r;
}

function partRef(r: PartRef | undefined): PartRef {
  if (!r) throw Errors.invalidRequest('part is required');
  return r;
}

export function createStorageService(storage: Storage, blobs: BlobStore, parts: Parts): ServiceImpl<typeof StorageService> {
  async function download(r: FileRef, expiresInSeconds: number) {
    return instruction(await storage.signDownload(r.accountId, r.dirId, r.fileName, expiresInSeconds));
  }

  function instruction({ file, url }: Awaited<ReturnType<Storage['signFile']>>) {
    return create(DownloadInstructionSchema, {
      url: url.url,
      method: 'GET',
      expiresInSeconds: url.expiresInSeconds,
      filePath: filePath(file),
      fileSize: BigInt(file.size),
      fileType: file.contentType ?? undefined,
    });
  }

  /** StoreFile and StoreLocalFile: one bookkeeping (Storage.storeFile), one answer. */
  async function store(header: StoreFileHeader, body: StoreBody) {
    const file = await storage.storeFile(header.accountId, header.dirId, header.fileName, body, header.overwrite);
    const seconds = header.downloadExpiresInSeconds > 0 ? header.downloadExpiresInSeconds : RESULT_URL_TTL_SEC;
    return { file: fileMessage(file), download: instruction(await storage.signFile(file, seconds)) };
  }

  return {
    async createDirectory(req) {
      return { directory: directoryMessage(await storage.createDirectory(req.accountId, req.ttl)) };
    },
    async listDirectories(req) {
      return { directories: (await storage.listDirectories(req.accountId)).map(directoryMessage) };
    },
    async listFiles(req) {
      return { files: (await storage.listFiles(req.accountId, req.dirId)).map(fileMessage) };
    },
    async registerFile(req) {
      const { file, upload } = await storage.registerFile(req.accountId, req.fileName, req.dirId);
      return {
        file: fileMessage(file),
        upload: { url: upload.url, method: 'PUT', headers: upload.headers, expiresInSeconds: upload.expiresInSeconds },
      };
    },
    async getFileInfo(req) {
      const r = ref(req.file);
      return { fileInfo: fileInfo(await storage.uploadedFile(r.accountId, r.dirId, r.fileName)) };
    },
    async deleteFile(req) {
      const r = ref(req.file);
      return { filePath: filePath(await storage.deleteFile(r.accountId, r.dirId, r.fileName)) };
    },
    async getDownload(req) {
      const seconds = req.expiresInSeconds > 0 ? Math.min(req.expiresInSeconds, RESULT_URL_TTL_SEC) : DOWNLOAD_URL_TTL_SEC;
      return { download: await download(ref(req.file), seconds) };
    },
    async resolveFile(req) {
      const r = ref(req.file);
      const file = await storage.uploadedFile(r.accountId, r.dirId, r.fileName);
      return {
        fileInfo: fileInfo(file),
        blobKey: file.blobKey,
        localPath: blobs.localPath?.(file.blobKey),
        mediaProbe: file.mediaProbe ?? undefined,
      };
    },
    async recordMediaProbe(req) {
      const r = ref(req.file);
      return { recorded: await storage.recordMediaProbe(r.accountId, r.dirId, r.fileName, req.blobKey, req.mediaProbe) };
    },
    async *readFile(req) {
      const r = ref(req.file);
      const file = await storage.uploadedFile(r.accountId, r.dirId, r.fileName);
      for await (const chunk of await blobs.get(file.blobKey)) yield { chunk: chunk as Uint8Array };
    },
    async storeFile(requests) {
      const { header, chunks } = await headerThenChunks(requests, 'StoreFile');
      return store(header, { stream: chunks });
    },
    async storeLocalFile(req) {
      if (!req.header) throw Errors.invalidRequest('header is required');
      return store(req.header, { localPath: req.sourcePath, size: Number(req.header.size) });
    },
    async putPart(requests) {
      const { header, chunks } = await headerThenChunks(requests, 'PutPart');
      return { size: BigInt((await parts.put(header, chunks)).size) };
    },
    async *getPart(req) {
      for await (const chunk of await parts.get(partRef(req.part))) yield { chunk: chunk as Uint8Array };
    },
    async deleteParts(req) {
      return { deleted: await parts.delete(req.jobId, req.runId) };
    },
  };
}

/** A client stream's messages: one header, then chunks. */
type HeaderThenChunks<H> = {
  part: { case: 'header'; value: H } | { case: 'chunk'; value: Uint8Array } | { case: undefined; value?: undefined };
};

/** The header of a client stream, and its chunks as a stream read on demand (never buffered whole). */
async function headerThenChunks<H>(requests: AsyncIterable<HeaderThenChunks<H>>, rpc: string): Promise<{ header: H; chunks: Readable }> {
  const it = requests[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done || first.value.part.case !== 'header') throw Errors.invalidRequest(`${rpc} must start with a header`);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (;;) {
      const next = await it.next();
      if (next.done) return;
      if (next.value.part.case !== 'chunk') throw Errors.invalidRequest(`${rpc} sends one header, then chunks`);
      yield Buffer.from(next.value.part.value);
    }
  }
  return { header: first.value.part.value, chunks: Readable.from(chunks()) };
}
