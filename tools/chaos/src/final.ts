// The end checks' reads: every account's jobs (GET /jobs), its usage rows (GET /account/usage,
// JSON, every page), every acknowledged upload read back, every listed file read. The cluster is
// whole again by now: 429 and 503 are waited out (Retry-After) and a missing answer is retried.
import type { Account, Answer, Client } from './client.js';
import { readBack } from './load/files.js';
import type { LoadAccount } from './load/context.js';
import type { DownloadCheck, FinalJob, RunData, Upload, UsageRow } from './record.js';

const TRIES = 6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function settledApi(client: Client, a: Account, path: string): Promise<Answer> {
  let res: Answer = {};
  for (let i = 0; i < TRIES; i++) {
    res = await client.api('final', a, 'GET', path);
    if (res.status !== undefined && res.status !== 429 && res.status !== 503) return res;
    await sleep(Math.min(Number(res.headers?.get('retry-after') ?? 1), 10) * 1000);
  }
  return res;
}

export async function listJobs(client: Client, a: Account): Promise<FinalJob[]> {
  const out: FinalJob[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await settledApi(client, a, `/jobs?limit=100&offset=${offset}&sort=created_at_asc`);
    if (res.status !== 200 || !res.body) throw new Error(`GET /jobs for ${a.label}: ${res.status ?? 'no answer'}`);
    for (const j of res.body.jobs as { id: string; status: string }[]) out.push({ account: a.label, id: j.id, status: j.status });
    if (!(res.body.pagination as { has_more: boolean }).has_more) return out;
  }
}

export async function usageRows(client: Client, a: Account, fromMs: number): Promise<UsageRow[]> {
  const out: UsageRow[] = [];
  const from = new Date(fromMs - 60_000).toISOString();
  const to = new Date(Date.now() + 60_000).toISOString();
  let cursor: string | null = null;
  do {
    const q = `/account/usage?format=json&limit=10000&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await settledApi(client, a, q);
    if (res.status !== 200 || !res.body)
      throw new Error(`GET /account/usage for ${a.label}: ${res.status ?? 'no answer'} ${res.body?.error ?? ''}`);
    for (const r of res.body.rows as Omit<UsageRow, 'account'>[]) out.push({ ...r, account: a.label });
    cursor = res.body.next_cursor as string | null;
  } while (cursor);
  return out;
}

/** Reads back every acknowledged upload, then every listed file not among them. */
export async function readFiles(
  client: Client,
  accounts: LoadAccount[],
  uploads: Upload[],
): Promise<{ downloads: DownloadCheck[]; listed: RunData['listed'] }> {
  const downloads: DownloadCheck[] = [];
  const listed: RunData['listed'] = [];
  for (const a of accounts) {
    const mine = uploads.filter((u) => u.account === a.label && u.acknowledged);
    for (const u of mine) downloads.push({ ...(await retried(() => readBack(client, 'final', a, u.filePath, u.sha256))), when: 'final' });
    const dir = await settledApi(client, a, `/directory/${a.dirId}`);
    if (dir.status !== 200 || !dir.body) throw new Error(`GET /directory/${a.dirId}: ${dir.status ?? 'no answer'}`);
    const checked = new Map(downloads.map((d) => [d.filePath, d]));
    for (const f of dir.body.files as { file_name: string }[]) {
      const filePath = `${a.dirId}/${f.file_name}`;
      const d = checked.get(filePath) ?? (await retried(() => readBack(client, 'final', a, filePath)));
      listed.push({ account: a.label, filePath, readable: d.outcome !== 'unreadable', detail: d.detail });
    }
  }
  return { downloads, listed };
}

/** An unreadable answer may be a 429 (the end checks read a lot on one key): tried again after a pause. */
async function retried(read: () => Promise<Omit<DownloadCheck, 'when'>>): Promise<Omit<DownloadCheck, 'when'>> {
  let found = await read();
  for (let i = 1; i < TRIES && found.outcome === 'unreadable'; i++) {
    await sleep(5000);
    found = await read();
  }
  return found;
}
