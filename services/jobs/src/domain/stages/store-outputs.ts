// Stage 5: each finished output goes to Storage with a 1-hour download URL, into the task's
// output directory. In place when Storage shares this disk (StoreLocalFile: Storage links or
// copies the file from the work directory, after checking the path lies in the Jobs work
// directory it trusts), else streamed over RPC; both end in the same bookkeeping in Storage.
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import {
  StoreFileHeaderSchema,
  StoreFileRequestSchema,
  type StorageService,
  type StoreFileHeader,
} from '@media/proto/media/storage/v1/storage_pb.js';
import type { OutputFile, TaskPlan } from '@media/media';
import { DomainError, Errors, RESULT_URL_TTL_SEC, type Logger } from '@media/platform';
import type { Principal, ResultItemDoc } from '../job-doc.js';

/** After Storage declined a local store (S3, another host, an older Storage), stream for this long before asking again. */
const LOCAL_STORE_RETRY_MS = 60_000;

/** Runs a step that must not be lost (see ExecuteOptions.persist). */
export type Persist = <T>(step: () => Promise<T>) => Promise<T>;

export interface StoreRequest {
  who: Principal;
  task: TaskPlan;
  outputs: Pick<OutputFile, 'fileName' | 'path' | 'size'>[];
  persist: Persist;
}

export interface OutputStore {
  /** Stores every output of a run, each step through `persist`; the result items, in order. */
  storeAll(req: StoreRequest): Promise<ResultItemDoc[]>;
  /** Stores one finished output in directory `dirId`. */
  store(accountId: string, dirId: string, out: { fileName: string; path: string; size: number }): Promise<ResultItemDoc>;
}

const directoryGone = () =>
  new DomainError(
    'not_found',
    `${Errors.directoryNotFound().message}: the output directory expired or was deleted while the job ran; nothing was charged`,
  );

/** One per service instance: it remembers, for a while, that Storage declined to store in place. */
export function createOutputStore(storage: Client<typeof StorageService>, logger: Logger): OutputStore {
  let declined: { until: number; reason: string } | undefined;

  async function storeInPlace(header: StoreFileHeader, path: string) {
    const before = declined;
    if (before && before.until > Date.now()) return undefined;
    try {
      return await storage.storeLocalFile({ header, sourcePath: path });
    } catch (err) {
      // FAILED_PRECONDITION: this Storage cannot take it in place (nothing was stored); UNIMPLEMENTED:
      // a Storage from before StoreLocalFile. Any other answer is the store's answer, as streamed.
      if (!(err instanceof ConnectError) || (err.code !== Code.FailedPrecondition && err.code !== Code.Unimplemented)) throw err;
      declined = { until: Date.now() + LOCAL_STORE_RETRY_MS, reason: err.rawMessage };
      // Said once per reason (S3 deployments would otherwise log it every minute).
      if (before?.reason !== err.rawMessage) logger.info({ reason: err.rawMessage }, 'storing job outputs by streaming them to Storage');
      return undefined;
    }
  }

  async function store(accountId: string, dirId: string, out: { fileName: string; path: string; size: number }): Promise<ResultItemDoc> {
    const header = create(StoreFileHeaderSchema, {
      accountId,
      dirId,
      fileName: out.fileName,
      size: BigInt(out.size),
      overwrite: true,
      downloadExpiresInSeconds: RESULT_URL_TTL_SEC,
    });
    try {
      const stored = (await storeInPlace(header, resolve(out.path))) ?? (await storage.storeFile(streamed(header, out.path)));
      return { fileName: out.fileName, sizeBytes: Number(stored.download!.fileSize), downloadUrl: stored.download!.url };
    } catch (err) {
      // The directory expired (or was deleted) while the job ran: the user's doing, not a fault.
      if (err instanceof ConnectError && err.code === Code.NotFound && err.rawMessage === Errors.directoryNotFound().message)
        throw directoryGone();
      throw err;
    }
  }

  /**
   * Where the outputs go, as ffmpeg-api.com does it: task.output_dir_id if given, else the uploaded
   * inputs' directory, else a new directory (a task of URL inputs only).
   */
  async function outputDirectory(who: Principal, task: TaskPlan): Promise<string> {
    if (task.outputDirId !== undefined) return task.outputDirId;
    const uploaded = task.inputs.find((i) => i.source.kind === 'uploaded')?.source;
    if (uploaded?.kind === 'uploaded') return uploaded.dirId;
    const { directory } = await storage.createDirectory({ accountId: who.accountId });
    return directory!.id;
  }

  return {
    store,
    async storeAll({ who, task, outputs, persist }) {
      const dirId = await persist(() => outputDirectory(who, task));
      const stored: ResultItemDoc[] = [];
      for (const out of outputs) stored.push(await persist(() => store(who.accountId, dirId, out)));
      return stored;
    },
  };
}

async function* streamed(header: StoreFileHeader, path: string) {
  yield create(StoreFileRequestSchema, { part: { case: 'header', value: header } });
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 })) {
    yield create(StoreFileRequestSchema, { part: { case: 'chunk', value: chunk as Buffer } });
  }
}
