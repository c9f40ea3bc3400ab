// POST /ffprobe/analyze (format + streams) against bare ffprobe on the same file.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { median, ms } from '../lib/stats.js';
import { api, upload, type Service } from '../lib/service.js';
import { interleave, timeCommand, timed } from '../lib/timing.js';
import type { Context, Row } from '../lib/report.js';

export async function probe(ctx: Context, svc: Service, clip: string): Promise<Row> {
  const { authorizations } = await svc.account();
  const call = api(svc.stack.baseUrl, authorizations[0]!);
  const filePath = await upload(call, clip, 'input.mp4');
  const bareDir = join(ctx.workDir, 'bare-probe');
  await mkdir(bareDir, { recursive: true });
  await copyFile(clip, join(bareDir, 'input.mp4'));
  const bareArgs = ['-hide_banner', '-loglevel', 'error', '-print_format', 'json', '-show_format', '-show_streams', 'input.mp4'];
  const s = await interleave(
    ctx.runs * 2,
    () => timeCommand('ffprobe', bareArgs, bareDir),
    () => timed(async () => {
      const res = await call('POST', '/ffprobe/analyze', { file_path: filePath, probe: { format: [], streams: [] } });
      if (!res.result?.format || !res.result?.streams) throw new Error(`unexpected result ${JSON.stringify(res)}`);
    }),
  );
  const [bare, service] = [median(s.baseline), median(s.service)];
  ctx.log(`probe: bare ${s.baseline.map(ms).join(', ')} | service ${s.service.map(ms).join(', ')}`);
  return {
    benchmark: '`/ffprobe/analyze` format + streams',
    baseline: `${ms(bare)} (bare ffprobe)`,
    service: ms(service),
    figure: `+${ms(service - bare)}`,
    target: '<= bare + 30 ms',
    met: service - bare <= 30,
  };
}
