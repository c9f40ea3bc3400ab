// 1 GB through the signed PUT and back through the signed GET, against `cp` of the same file on
// the same disk; the service process's RSS is sampled throughout (growth must stay < 64 MB).
import { watchRssPeak } from '../lib/rss-peak.js';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { median, mbps, ratio } from '../lib/stats.js';
import { api, putFile, type Service } from '../lib/service.js';
import { startBaselineServer } from '../lib/load.js';
import { timeCommand, timed } from '../lib/timing.js';
import { buildZeroCopy, type ZeroCopy } from '../lib/zero-copy.js';
import type { Context, Row } from '../lib/report.js';

// curl is the client: what users script, and not itself the bottleneck (Node's http client with
// a file stream tops out near 300 MB/s here). Without curl, Node's client does the transfers.
const curl = spawnSync('curl', ['--version']).status === 0;

export function curlTo(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['--silent', '--show-error', '--fail', ...args], (err) => (err ? reject(err) : resolve()));
  });
}

/** The plain PUT of a file with curl, sending the upload instruction's headers. */
export function curlPut(url: string, headers: Record<string, string>, file: string): Promise<void> {
  return curlTo([
    '--upload-file',
    file,
    '--output',
    '/dev/null',
    ...Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
    url,
  ]);
}

function putWith(url: string, headers: Record<string, string>, file: string): Promise<void> {
  if (!curl) return putFile(url, headers, file);
  return curlPut(url, headers, file);
}

function getToFile(url: string, file: string): Promise<void> {
  if (curl) return curlTo(['--output', file, url]);
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET -> ${res.statusCode}`));
      pipeline(res, createWriteStream(file, { highWaterMark: 1 << 20 })).then(resolve, reject);
    })
      .on('error', reject)
      .end();
  });
}

/**
 * Times `run` from a clean start: no dirty pages left by the step before (a gigabyte being
 * written back meanwhile made single downloads 2-3x slower), and a gigabyte of memory just freed
 * (see warmPages).
 */
export function timedFromClean(scratch: string, size: number, run: () => Promise<unknown>): Promise<number> {
  execFileSync('sync');
  warmPages(scratch, size);
  return timed(run);
}

/**
 * Writes `size` bytes to a scratch file and deletes it, so the next step finds that much memory
 * just freed. On this VM (Firecracker, with free page reporting) memory left free for a few
 * seconds goes back to the host, and writing a gigabyte into it costs 2.2-3.2 s against
 * 0.24-0.27 s into memory freed just before (dd of /dev/zero). Without this, each step's cost
 * depended on what the step before it happened to free: the service's download was the one step
 * that always found none.
 */
export function warmPages(scratch: string, size: number): void {
  execFileSync('dd', ['if=/dev/zero', `of=${scratch}`, 'bs=1M', `count=${Math.ceil(size / 2 ** 20)}`, 'status=none']);
  rmSync(scratch);
}

export async function transfer(ctx: Context, svc: Service, big: string, size: number): Promise<Row[]> {
  const { authorizations } = await svc.account();
  const call = api(svc.stack.baseUrl, authorizations[0]!);
  const copy = join(ctx.workDir, 'big.copy');
  const back = join(ctx.workDir, 'big.download');
  const scratch = join(ctx.workDir, 'big.scratch');
  const runs = Math.max(3, Math.ceil(ctx.runs / 2));
  const samples = {
    cp: [] as number[],
    put: [] as number[],
    get: [] as number[],
    nodePut: [] as number[],
    nodeGet: [] as number[],
    refPut: [] as number[],
    refGet: [] as number[],
    zcRefPut: [] as number[],
    zcRefGet: [] as number[],
    zcPut: [] as number[],
    zcGet: [] as number[],
  };
  const zc = buildZeroCopy(ctx.workDir, ctx.log);
  const bareNode = await startBaselineServer('file-server.js', ctx.workDir);
  let ref: Awaited<ReturnType<ZeroCopy['serve']>> | undefined;
  const before = await svc.stack.rss();
  const rss = watchRssPeak(() => svc.stack.rss(), before);
  try {
    ref = await zc?.serve(big, copy);
    const step = async (into: number[], run: () => Promise<unknown>) => void into.push(await timedFromClean(scratch, size, run));
    // One 1 GB file through the service: PUT with `put`, GET with `get`, then deleted.
    const throughService = async (n: string, put: number[], get: number[], client: { put: typeof putWith; get: typeof getToFile }) => {
      const reg = await call('POST', '/file', { file_name: `big-${n}.bin` });
      await step(put, () => client.put(reg.upload.url, reg.upload.headers ?? {}, big));
      const { download } = await call('GET', `/file/download/${reg.file.file_path}`);
      await step(get, () => client.get(download.url, back));
      await rm(back);
      await call('DELETE', `/file/${reg.file.file_path}`);
    };
    for (let i = 0; i < runs; i++) {
      await step(samples.cp, () => timeCommand('cp', [big, copy], ctx.workDir));
      await rm(copy);
      await throughService(`${i}`, samples.put, samples.get, { put: putWith, get: getToFile });
      await step(samples.nodePut, () => putWith(bareNode.url, {}, big));
      await step(samples.nodeGet, () => getToFile(bareNode.url, back));
      await rm(back);
      if (!zc || !ref) continue;
      // Each step writes a new file, as the others do (into an existing 1 GB file, freeing its
      // pages and blocks would be timed too).
      const url = ref.url;
      await step(samples.refPut, () => putWith(url, {}, big));
      await rm(copy);
      await step(samples.refGet, () => getToFile(url, back));
      await rm(back);
      await step(samples.zcRefPut, () => zc.put(url, {}, big));
      await rm(copy);
      await step(samples.zcRefGet, () => zc.get(url, back));
      await rm(back);
      await throughService(`zc-${i}`, samples.zcPut, samples.zcGet, zc);
    }
  } finally {
    rss.stop();
    await bareNode.stop();
    await ref?.stop();
  }
  const rate = (xs: number[]) => size / (median(xs) / 1000);
  const [cp, put, get] = [rate(samples.cp), rate(samples.put), rate(samples.get)];
  const [nodePut, nodeGet] = [rate(samples.nodePut), rate(samples.nodeGet)];
  const peak = rss.peak;
  const growth = (peak - before) / 1e6;
  const ms = (xs: number[]) => xs.map(Math.round).join(',');
  ctx.log(
    `transfer (${curl ? 'curl' : 'node'} client): cp ${ms(samples.cp)} ms | put ${ms(samples.put)} ms | get ${ms(samples.get)} ms | bare node:http put ${ms(samples.nodePut)} get ${ms(samples.nodeGet)} ms | RSS ${(before / 1e6).toFixed(0)} -> ${(peak / 1e6).toFixed(0)} MB`,
  );
  const client = curl ? 'curl' : "Node's client";
  const rows: Row[] = [];
  const clientRow = (what: string, service: number, node: number, refSamples: number[]) => {
    const reference = zc ? `; the same ${client} to an in-kernel C server ${mbps(rate(refSamples))}` : '';
    return {
      benchmark: `1 GB ${what}`,
      baseline: `${mbps(cp)} (cp)${reference}; bare node:http ${mbps(node)}`,
      service: mbps(service),
      figure: ratio(service / cp),
      target: '>= 0.8x throughput',
      met: service / cp >= 0.8,
    };
  };
  rows.push(clientRow('upload through the signed PUT', put, nodePut, samples.refPut));
  rows.push(clientRow('download through the signed GET', get, nodeGet, samples.refGet));
  if (zc) {
    ctx.log(
      `transfer (zero-copy client): C server put ${ms(samples.zcRefPut)} get ${ms(samples.zcRefGet)} ms | service put ${ms(samples.zcPut)} get ${ms(samples.zcGet)} ms | ${client} to C server put ${ms(samples.refPut)} get ${ms(samples.refGet)} ms`,
    );
    const zcRow = (what: string, service: number[], reference: number[]): Row => {
      const [s, r] = [rate(service), rate(reference)];
      return {
        benchmark: `1 GB ${what}, a zero-copy C client instead of ${client}`,
        baseline: `${mbps(cp)} (cp); the same client to an in-kernel C server ${mbps(r)} (${ratio(r / cp)} of cp)`,
        service: `${mbps(s)} (${ratio(s / r)} of the C server)`,
        figure: ratio(s / cp),
        target: '>= 0.8x throughput',
        met: s / cp >= 0.8,
      };
    };
    rows.push(
      zcRow('upload through the signed PUT', samples.zcPut, samples.zcRefPut),
      zcRow('download through the signed GET', samples.zcGet, samples.zcRefGet),
    );
  }
  rows.push({
    benchmark: 'service RSS growth during the 1 GB transfers',
    baseline: `${(before / 1e6).toFixed(0)} MB at start`,
    service: `${(peak / 1e6).toFixed(0)} MB peak`,
    figure: `+${growth.toFixed(1)} MB`,
    target: '< 64 MB',
    met: growth < 64,
  });
  return rows;
}
