// Resumable uploads (issue 44): the same file through the signed URL as a tus upload
// (tus-js-client, in one PATCH and in 50 MB PATCHes) against the plain PUT of the same run, on
// the local-disk backend; the service's RSS is sampled during each kind of step. For reference,
// the plain PUT also goes from Node's HTTP client (what tus-js-client sends with in Node) and tus
// also from curl (the plain PUT's client): which side of the connection sets the pace.
import { watchRssPeak } from '../lib/rss-peak.js';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTusUpload } from '@media/testkit';
import { randomFile } from '../lib/fixtures.js';
import { median, mbps, ratio } from '../lib/stats.js';
import { api, type Service } from '../lib/service.js';
import { timeCommand } from '../lib/timing.js';
import { curlPut, curlTo, timedFromClean } from './transfer.js';
import type { Context, Row } from '../lib/report.js';

/** A few hundred MB: long enough to time, small enough for rounds of five uploads. */
export const TUS_BYTES = 400e6;
const CHUNK_BYTES = 50e6;
const TUS = ['--header', 'Tus-Resumable: 1.0.0'];

const PUT_CHILD = fileURLToPath(new URL('../put-child.js', import.meta.url));

type Kind = 'put' | 'nodePut' | 'tus' | 'tusChunked' | 'tusCurl';

/** One tus upload with curl, as docs/api/files.md shows it: POST with Upload-Length, one PATCH. */
async function tusWithCurl(url: string, file: string, size: number): Promise<void> {
  await curlTo(['--request', 'POST', ...TUS, '--header', `Upload-Length: ${size}`, '--output', '/dev/null', url]);
  await curlTo([
    '--request',
    'PATCH',
    ...TUS,
    '--header',
    'Upload-Offset: 0',
    '--header',
    'Content-Type: application/offset+octet-stream',
    '--upload-file',
    file,
    '--output',
    '/dev/null',
    url,
  ]);
}

async function tusJs(url: string, file: string, chunkBytes?: number): Promise<void> {
  const run = await runTusUpload(file, url, chunkBytes ? { chunkBytes } : {});
  if (!run.ok) throw new Error(`tus upload failed: ${run.status ?? ''} ${run.error ?? 'no answer'}`);
}

export async function tusUpload(ctx: Context, svc: Service): Promise<Row[]> {
  const dir = join(ctx.workDir, 'tus');
  await mkdir(dir, { recursive: true });
  const file = await randomFile(dir, TUS_BYTES);
  const scratch = join(dir, 'scratch');
  const { authorizations } = await svc.account();
  const call = api(svc.stack.baseUrl, authorizations[0]!);
  const runs = Math.max(3, Math.ceil(ctx.runs / 2));
  const samples: Record<Kind, number[]> = { put: [], nodePut: [], tus: [], tusChunked: [], tusCurl: [] };
  const peaks: Record<Kind, number> = { put: 0, nodePut: 0, tus: 0, tusChunked: 0, tusCurl: 0 };
  const before = await svc.stack.rss();
  const rss = watchRssPeak(() => svc.stack.rss(), before);
  const uploads: Record<Kind, (url: string, headers: Record<string, string>) => Promise<void>> = {
    put: (url, headers) => curlPut(url, headers, file),
    nodePut: async (url) => void (await timeCommand(process.execPath, [PUT_CHILD, file, url], dir)),
    tus: (url) => tusJs(url, file),
    tusChunked: (url) => tusJs(url, file, CHUNK_BYTES),
    tusCurl: (url) => tusWithCurl(url, file, TUS_BYTES),
  };
  // Each round turns the order by one, so no kind always follows the same other.
  const order: Kind[] = ['put', 'tus', 'nodePut', 'tusChunked', 'tusCurl'];
  try {
    for (let i = 0; i < runs; i++) {
      for (let j = 0; j < order.length; j++) {
        const kind = order[(i + j) % order.length]!;
        const reg = await call('POST', '/file', { file_name: `tus-${kind}-${i}.bin` });
        rss.restart(await svc.stack.rss());
        samples[kind].push(await timedFromClean(scratch, TUS_BYTES, () => uploads[kind](reg.upload.url, reg.upload.headers ?? {})));
        peaks[kind] = Math.max(peaks[kind], rss.peak);
        // Stored whole: the file's info gives its size (an upload not completed is not found).
        const { file_info: info } = await call('GET', `/file/${reg.file.file_path}`);
        if (info.file_size !== TUS_BYTES) throw new Error(`${kind}: stored ${info.file_size} bytes of ${TUS_BYTES}`);
        await call('DELETE', `/file/${reg.file.file_path}`);
      }
    }
  } finally {
    rss.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const rate = (k: Kind) => TUS_BYTES / (median(samples[k]) / 1000);
  const growth = (k: Kind) => (peaks[k] - before) / 1e6;
  const list = (xs: number[]) => xs.map(Math.round).join(',');
  ctx.log(
    `tus-upload (${TUS_BYTES / 1e6} MB): ${order.map((k) => `${k} ${list(samples[k])} ms, RSS peak ${(peaks[k] / 1e6).toFixed(0)} MB`).join(' | ')}; RSS at start ${(before / 1e6).toFixed(0)} MB`,
  );
  const [put, nodePut] = [rate('put'), rate('nodePut')];
  const mb = `${TUS_BYTES / 1e6} MB`;
  // Judged against the plain PUT sent by the same client: the clients' own costs differ (Node's
  // HTTP client sends at about half curl's rate here, whatever the service does).
  const tusRow = (k: Kind, what: string): Row => {
    const same = k === 'tusCurl' ? put : nodePut;
    return {
      benchmark: `${mb} resumable upload (tus), ${what}`,
      baseline: `${mbps(same)} (the plain PUT with ${k === 'tusCurl' ? 'curl' : "Node's client"}, same run); with ${k === 'tusCurl' ? "Node's client" : 'curl'} ${mbps(k === 'tusCurl' ? nodePut : put)}`,
      service: `${mbps(rate(k))} (${ratio(rate(k) / put)} of curl's plain PUT)`,
      figure: ratio(rate(k) / same),
      target: '>= 0.8x the plain PUT, same client',
      met: rate(k) / same >= 0.8,
    };
  };
  const rssRow = (k: Kind, what: string): Row => ({
    benchmark: `service RSS growth during the ${mb} ${what}`,
    baseline: `${(before / 1e6).toFixed(0)} MB at start; the plain PUT's +${growth('put').toFixed(1)} MB`,
    service: `${(peaks[k] / 1e6).toFixed(0)} MB peak`,
    figure: `+${growth(k).toFixed(1)} MB`,
    target: '< 64 MB',
    met: growth(k) < 64,
  });
  return [
    tusRow('tus', 'tus-js-client, one PATCH'),
    tusRow('tusChunked', `tus-js-client, PATCHes of ${CHUNK_BYTES / 1e6} MB`),
    tusRow('tusCurl', 'curl, POST then one PATCH (the same client as the PUT)'),
    rssRow('tus', 'tus uploads, one PATCH'),
    rssRow('tusChunked', `tus uploads, PATCHes of ${CHUNK_BYTES / 1e6} MB`),
  ];
}
