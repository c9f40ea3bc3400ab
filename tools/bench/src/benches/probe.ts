// POST /ffprobe/analyze (format + streams) against bare ffprobe on the same file.
import { interleave, timeCommand, timed } from '../lib/timing.js';
import type { Service } from '../lib/service.js';
import type { Context, Row } from '../lib/report.js';
import { addedLatencyRow, sameFile } from './same-file.js';

export async function probe(ctx: Context, svc: Service, clip: string): Promise<Row> {
  const { call, filePath, bareDir } = await sameFile(ctx, svc, clip, 'probe');
  const bareArgs = ['-hide_banner', '-loglevel', 'error', '-print_format', 'json', '-show_format', '-show_streams', 'input.mp4'];
  const s = await interleave(
    ctx.runs * 2,
    () => timeCommand('ffprobe', bareArgs, bareDir),
    () =>
      timed(async () => {
        const res = await call('POST', '/ffprobe/analyze', { file_path: filePath, probe: { format: [], streams: [] } });
        if (!res.result?.format || !res.result?.streams) throw new Error(`unexpected result ${JSON.stringify(res)}`);
      }),
  );
  return addedLatencyRow(ctx, 'probe', '`/ffprobe/analyze` format + streams', 'ffprobe', s, 30);
}
