// The load's HTTP client: every request recorded with its answer, its error text and Retry-After,
// or as a hang (no answer within the client's timeout) or a transport error.
import type { Call, Op } from './record.js';

/** Client timeouts: a sync run or a probe (a job too) may wait for a slot; everything else answers quickly. */
export const TIMEOUT_MS = { sync: 60_000, other: 15_000 } as const;

/** An answer's JSON, read by the field names the spec gives. */
// biome-ignore lint/suspicious/noExplicitAny: the service's JSON, shaped by the spec, not by a type here
export type Json = Record<string, any>;

export interface Answer {
  status?: number;
  body?: Json;
  bytes?: Buffer;
  headers?: Headers;
}

export interface Account {
  label: string;
  accountId: string;
  authorization: string;
}

export class Client {
  readonly calls: Call[] = [];

  constructor(
    readonly baseUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** A request to the API as `account`; JSON in, JSON (or bytes, for signed URLs) out. */
  async api(op: Op, account: Account, method: string, path: string, body?: unknown, timeoutMs?: number): Promise<Answer> {
    return this.request(op, account.label, method, this.baseUrl + path, path, {
      headers: { authorization: account.authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: timeoutMs ?? (op === 'sync' || op === 'probe' ? TIMEOUT_MS.sync : TIMEOUT_MS.other),
    });
  }

  /** A request to a signed URL (the store, through the balancer). */
  async signed(op: Op, account: Account, method: string, url: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
    return this.request(op, account.label, method, url, 'signed-url', { headers, body, timeoutMs: TIMEOUT_MS.other, raw: true });
  }

  private async request(
    op: Op,
    account: string,
    method: string,
    url: string,
    path: string,
    o: { headers: Record<string, string>; body?: string | Buffer; timeoutMs: number; raw?: boolean },
  ): Promise<Answer> {
    const call: Call = { op, account, method, path, startMs: this.now(), endMs: 0 };
    this.calls.push(call);
    const signal = AbortSignal.timeout(o.timeoutMs);
    try {
      const res = await fetch(url, { method, headers: o.headers, body: o.body, signal });
      const bytes = Buffer.from(await res.arrayBuffer());
      call.status = res.status;
      call.retryAfter = res.headers.get('retry-after');
      if (o.raw) return { status: res.status, bytes, headers: res.headers };
      let json: Json | undefined;
      try {
        json = JSON.parse(bytes.toString('utf8')) as Json;
      } catch {
        call.notJson = true;
        call.error = bytes.toString('utf8').slice(0, 200);
      }
      if (json && json.ok === false) call.error = String(json.error);
      if (json && typeof json.request_id === 'string') call.requestId = json.request_id;
      if (json && typeof json.job_id === 'string') call.requestId = json.job_id;
      return { status: res.status, body: json, headers: res.headers };
    } catch (err) {
      if (signal.aborted) call.timedOut = true;
      else call.transportError = describe(err);
      return {};
    } finally {
      call.endMs = this.now();
    }
  }
}

function describe(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message;
}
