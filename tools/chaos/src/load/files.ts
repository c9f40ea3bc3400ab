// Uploads and downloads through signed URLs: POST /file, PUT the bytes to the signed URL, and a
// download of an earlier acknowledged upload (GET /file/download, then the signed URL) compared
// byte for byte (sha256). Every upload is recorded, acknowledged (PUT 200) or not.
import { randomBytes } from 'node:crypto';
import { nextName, sha256, type LoadAccount, type LoadContext } from './context.js';
import type { Account, Client } from '../client.js';
import type { DownloadCheck } from '../record.js';

export async function upload(ctx: LoadContext, a: LoadAccount): Promise<void> {
  const bytes = randomBytes(ctx.rng.int(1, 64) * 1024);
  const fileName = nextName(a, 'up', 'bin');
  const reg = await ctx.client.api('file', a, 'POST', '/file', { file_name: fileName, dir_id: a.dirId });
  if (reg.status !== 200 || !reg.body) return;
  const { upload: u, file } = reg.body as { upload: { url: string; headers: Record<string, string> }; file: { file_path: string } };
  const put = await ctx.client.signed('put', a, 'PUT', u.url, u.headers, bytes);
  ctx.uploads.push({
    account: a.label,
    filePath: file.file_path,
    sha256: sha256(bytes),
    acknowledged: put.status === 200,
    atMs: ctx.now(),
  });
}

export async function download(ctx: LoadContext, a: LoadAccount): Promise<void> {
  const mine = ctx.uploads.filter((u) => u.account === a.label && u.acknowledged);
  if (!mine.length) return upload(ctx, a);
  const u = ctx.rng.pick(mine);
  const found = await readBack(ctx.client, 'download', a, u.filePath, u.sha256);
  // During the load an unanswered read is the fault's, not a loss: the end checks read every upload again.
  if (found.outcome === 'different') ctx.downloads.push({ ...found, when: 'load' });
}

/** Reads a file back through GET /file/download and its signed URL; compares with `expected` if given. */
export async function readBack(
  client: Client,
  op: 'download' | 'final',
  a: Account,
  filePath: string,
  expected?: string,
): Promise<Omit<DownloadCheck, 'when'>> {
  const base = { account: a.label, filePath };
  const dl = await client.api(op, a, 'GET', `/file/download/${filePath}`);
  if (dl.status !== 200 || !dl.body) return { ...base, outcome: 'unreadable', detail: `GET /file/download: ${dl.status ?? 'no answer'}` };
  const res = await client.signed(op, a, 'GET', (dl.body.download as { url: string }).url, {});
  if (res.status !== 200 || !res.bytes) return { ...base, outcome: 'unreadable', detail: `signed GET: ${res.status ?? 'no answer'}` };
  if (expected !== undefined && sha256(res.bytes) !== expected)
    return { ...base, outcome: 'different', detail: `${res.bytes.length} bytes, sha256 ${sha256(res.bytes)}` };
  return { ...base, outcome: 'same' };
}
