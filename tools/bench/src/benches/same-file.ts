// What the per-request benchmarks share: one input uploaded to the service and copied for the
// bare tool on the same disk, and a row for "the service adds at most N ms".
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { median, ms } from '../lib/stats.js';
import { api, upload, type Api, type Service } from '../lib/service.js';
import type { Context, Row } from '../lib/report.js';

/** A new account's `call`, the uploaded input's file_path, and a directory holding input.mp4. */
export async function sameFile(
  ctx: Context,
  svc: Service,
  clip: string,
  label: string,
): Promise<{ call: Api; filePath: string; bareDir: string }> {
  const { authorizations } = await svc.account();
  const call = api(svc.stack.baseUrl, authorizations[0]!);
  const filePath = await upload(call, clip, 'input.mp4');
  const bareDir = join(ctx.workDir, `bare-${label}`);
  await mkdir(bareDir, { recursive: true });
  await copyFile(clip, join(bareDir, 'input.mp4'));
  return { call, filePath, bareDir };
}

export function addedLatencyRow(
  ctx: Context,
  label: string,
  benchmark: string,
  tool: string,
  s: { baseline: number[]; service: number[] },
  limitMs: number,
): Row {
  const [bare, service] = [median(s.baseline), median(s.service)];
  ctx.log(`${label}: bare ${s.baseline.map(ms).join(', ')} | service ${s.service.map(ms).join(', ')}`);
  return {
    benchmark,
    baseline: `${ms(bare)} (bare ${tool})`,
    service: ms(service),
    figure: `${service >= bare ? '+' : '-'}${ms(Math.abs(service - bare))}`,
    target: `<= bare + ${limitMs} ms`,
    met: service - bare <= limitMs,
  };
}
