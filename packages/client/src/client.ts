// The typed client: every endpoint through openapi-fetch on the generated types (api.ts), errors
// thrown as MediaApiError, 429/503 resent after Retry-After, and helpers for whole flows.
// Browser-safe: nothing here touches the file system (node.ts does).
import createClient, { type Client } from 'openapi-fetch';
import type { operations, paths } from './api.js';
import { MediaApiError } from './errors.js';
import { type RetryOptions, retryingFetch } from './retry.js';

type Json<Op extends keyof operations, Status extends number = 200> = operations[Op] extends {
  responses: { [S in Status]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;
type Body<Op extends keyof operations> = operations[Op] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

export type TaskRequest = Body<'processSync'>;
export type Task = TaskRequest['task'];
export type ProcessResult = Json<'processSync'>;
export type ResultItem = NonNullable<ProcessResult['result']>[number];
export type Job = Json<'getJob'>;
export type JobList = Json<'listJobs'>;
export type SubmittedJob = Json<'submitJob', 202>;
export type RegisteredFile = Json<'registerFile'>;
export type Account = Json<'getAccount'>;
export type ProbeResult = Json<'probe'>;
export type UsagePage = Json<'exportUsage'>;
export type UsageRow = NonNullable<UsagePage['rows']>[number];
export type UsageQuery = NonNullable<operations['exportUsage']['parameters']['query']>;
export type JobListQuery = NonNullable<operations['listJobs']['parameters']['query']>;

export const FINISHED_STATES = ['completed', 'failed', 'cancelled'] as const;

export interface MediaClientOptions {
  /** The gateway, e.g. http://localhost:8080. */
  baseUrl: string;
  /** The key as the console shows it (mk_...), or a whole Authorization value ("Basic ..."). */
  apiKey: string;
  /** Resending on 429/503 (default: 4 times, honouring Retry-After up to 60 s); false: never. */
  retry?: RetryOptions | false;
  fetch?: typeof fetch;
}

export interface WaitOptions {
  /** Between polls (default 1000 ms). */
  intervalMs?: number;
  /** Each poll's answer, while the job is pending or processing (progress included). */
  onProgress?: (job: Job) => void;
  signal?: AbortSignal;
}

/** An Idempotency-Key per call: a resent POST (a retry) is then never done twice. */
const newKey = () => globalThis.crypto.randomUUID();

export class MediaClient {
  /** Every endpoint, typed (openapi-fetch): `client.api.GET('/jobs', { params: { query } })`. */
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private readonly authorization: string;
  private readonly fetch: typeof fetch;

  constructor(opts: MediaClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.authorization = /^basic\s/i.test(opts.apiKey) ? opts.apiKey : `Basic ${opts.apiKey}`;
    const base = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.fetch = opts.retry === false ? base : retryingFetch(base, opts.retry);
    this.api = createClient<paths>({ baseUrl: this.baseUrl, headers: { authorization: this.authorization }, fetch: this.fetch });
  }

  /** The data of an answer, or its error thrown as MediaApiError. */
  private async call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    let answer: { data?: T; error?: unknown; response: Response };
    try {
      answer = await pending;
    } catch (err) {
      throw new MediaApiError(0, `Could not reach ${this.baseUrl}: ${(err as Error).cause ?? (err as Error).message}`);
    }
    const { data, error, response } = answer;
    if (response.ok && data !== undefined) return data;
    const sentence =
      typeof (error as { error?: unknown })?.error === 'string' ? (error as { error: string }).error : String(error ?? response.statusText);
    const retry = response.headers.get('retry-after');
    throw new MediaApiError(
      response.status,
      sentence,
      response.headers.get('x-request-id') ?? undefined,
      retry ? Number(retry) : undefined,
    );
  }

  private idempotency(key?: string) {
    return { header: { 'Idempotency-Key': key ?? newKey() } };
  }

  account(): Promise<Account> {
    return this.call(this.api.GET('/account'));
  }

  createDirectory(ttl?: number, idempotencyKey?: string) {
    return this.call(this.api.POST('/directory', { params: this.idempotency(idempotencyKey), body: ttl === undefined ? {} : { ttl } }));
  }

  listDirectories() {
    return this.call(this.api.GET('/directory'));
  }

  listFiles(dirId: string) {
    return this.call(this.api.GET('/directory/{dirId}', { params: { path: { dirId } } }));
  }

  /** Registers a file name; PUT its bytes to `upload.url` with `upload.headers` (uploadBytes does both). */
  register(fileName: string, dirId?: string, idempotencyKey?: string): Promise<RegisteredFile> {
    const body = dirId === undefined ? { file_name: fileName } : { file_name: fileName, dir_id: dirId };
    return this.call(this.api.POST('/file', { params: this.idempotency(idempotencyKey), body }));
  }

  /** Registers and uploads bytes held in memory (a Blob in a browser); files: uploadFile in ./node. */
  async uploadBytes(fileName: string, bytes: Blob | Uint8Array | string, dirId?: string): Promise<RegisteredFile> {
    const registered = await this.register(fileName, dirId);
    const { url, headers } = registered.upload!;
    const put = await this.fetch(url!, { method: 'PUT', headers, body: bytes as RequestInit['body'] });
    if (!put.ok) throw new MediaApiError(put.status, `The upload of ${fileName} was refused: ${await put.text()}`);
    return registered;
  }

  fileInfo(dirId: string, fileName: string) {
    return this.call(this.api.GET('/file/{dirId}/{fileName}', { params: { path: { dirId, fileName } } }));
  }

  downloadUrl(dirId: string, fileName: string) {
    return this.call(this.api.GET('/file/download/{dirId}/{fileName}', { params: { path: { dirId, fileName } } }));
  }

  deleteFile(dirId: string, fileName: string) {
    return this.call(this.api.DELETE('/file/{dirId}/{fileName}', { params: { path: { dirId, fileName } } }));
  }

  /** POST /ffmpeg/process: runs the task and answers its outputs. */
  process(task: Task, idempotencyKey?: string): Promise<ProcessResult> {
    return this.call(this.api.POST('/ffmpeg/process', { params: this.idempotency(idempotencyKey), body: { task } }));
  }

  /** POST /ffmpeg/process/async: queues the task; nothing is charged until it completes. */
  submit(task: Task, opts: { webhookUrl?: string; idempotencyKey?: string } = {}): Promise<SubmittedJob> {
    const body = opts.webhookUrl === undefined ? { task } : { task, webhook_url: opts.webhookUrl };
    return this.call(this.api.POST('/ffmpeg/process/async', { params: this.idempotency(opts.idempotencyKey), body }));
  }

  job(jobId: string): Promise<Job> {
    return this.call(this.api.GET('/job/{jobId}', { params: { path: { jobId } } }));
  }

  cancel(jobId: string) {
    return this.call(this.api.DELETE('/job/{jobId}', { params: { path: { jobId } } }));
  }

  jobs(query: JobListQuery = {}): Promise<JobList> {
    return this.call(this.api.GET('/jobs', { params: { query } }));
  }

  /** Polls a job until it is completed, failed or cancelled, and answers it as it ended. */
  async waitForJob(jobId: string, opts: WaitOptions = {}): Promise<Job> {
    const interval = opts.intervalMs ?? 1000;
    for (;;) {
      opts.signal?.throwIfAborted();
      const job = await this.job(jobId);
      if ((FINISHED_STATES as readonly string[]).includes(job.status ?? '')) return job;
      opts.onProgress?.(job);
      await new Promise((r) => setTimeout(r, interval));
    }
  }

  /** Runs a task synchronously, or queued and waited for (`async`): the outputs, or an error. */
  async run(task: Task, opts: WaitOptions & { async?: boolean; webhookUrl?: string } = {}): Promise<ProcessResult | Job> {
    if (!opts.async) return this.process(task);
    const { job_id } = await this.submit(task, { webhookUrl: opts.webhookUrl });
    const job = await this.waitForJob(job_id!, opts);
    if (job.status === 'failed') throw new MediaApiError(500, job.error ?? 'The job failed', job.request_id);
    if (job.status === 'cancelled') throw new MediaApiError(409, `Job ${job_id} was cancelled`, job.request_id);
    return job;
  }

  probe(filePath: string, probe?: Record<string, unknown>, idempotencyKey?: string): Promise<ProbeResult> {
    const body = probe === undefined ? { file_path: filePath } : { file_path: filePath, probe };
    return this.call(this.api.POST('/ffprobe/analyze', { params: this.idempotency(idempotencyKey), body }));
  }

  /** Every usage row of the period (JSON pages followed to the end). */
  async usageRows(query: Omit<UsageQuery, 'format' | 'cursor'> = {}): Promise<UsageRow[]> {
    const rows: UsageRow[] = [];
    let cursor: string | undefined;
    do {
      const page = (await this.call(
        this.api.GET('/account/usage', { params: { query: { ...query, format: 'json', ...(cursor ? { cursor } : {}) } } }),
      )) as UsagePage;
      rows.push(...(page.rows ?? []));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return rows;
  }

  /** The usage export as CSV text (every row of the period). */
  usageCsv(query: Omit<UsageQuery, 'format' | 'cursor' | 'limit'> = {}): Promise<string> {
    return this.call(this.api.GET('/account/usage', { params: { query: { ...query, format: 'csv' } }, parseAs: 'text' }));
  }
}
