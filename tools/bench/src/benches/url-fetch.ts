// A 1 GB URL input downloaded by the service's fetcher (fetchToFile: SSRF checks, pinned
// connection, counted body, written to a file; what a Jobs or Probe worker runs for an https
// input), against curl fetching the same file from the same loopback HTTPS server to the same
// disk. The fetcher runs in this process; the server in its own.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fetchToFile, parseCidrList } from '@media/media';
import { median, mbps, ratio } from '../lib/stats.js';
import { startBaselineServer } from '../lib/load.js';
import { interleave } from '../lib/timing.js';
import type { Context, Row } from '../lib/report.js';
import { curlTo, timedFromClean } from './transfer.js';

export async function urlFetch(ctx: Context, big: string, size: number): Promise<Row> {
  const server = await startBaselineServer('https-file-server.js', big, ctx.workDir);
  const caFile = join(ctx.workDir, 'https-ca.pem');
  const ca = await readFile(caFile, 'utf8');
  const out = join(ctx.workDir, 'fetched.bin');
  const scratch = join(ctx.workDir, 'fetch.scratch');
  const step = async (run: () => Promise<unknown>) => {
    const ms = await timedFromClean(scratch, size, run);
    await rm(out, { force: true });
    return ms;
  };
  const allowlist = parseCidrList('127.0.0.0/8'); // loopback counts as public here only
  let samples: { baseline: number[]; service: number[] };
  try {
    samples = await interleave(
      Math.max(3, Math.ceil(ctx.runs / 2)),
      () => step(() => curlTo(['--cacert', caFile, '--output', out, server.url])),
      () => step(() => fetchToFile(server.url, out, { allowlist, ca })),
    );
  } finally {
    await server.stop();
  }
  const rate = (xs: number[]) => size / (median(xs) / 1000);
  const [curl, fetcher] = [rate(samples.baseline), rate(samples.service)];
  ctx.log(`url-fetch: curl ${samples.baseline.map(Math.round)} ms | fetcher ${samples.service.map(Math.round)} ms`);
  return {
    benchmark: "1 GB URL input download (the workers' fetcher; no target in the issue)",
    baseline: `${mbps(curl)} (curl, same server)`,
    service: mbps(fetcher),
    figure: ratio(fetcher / curl),
    target: '>= 0.8x (mine)',
    met: fetcher / curl >= 0.8,
  };
}
