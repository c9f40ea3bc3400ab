// Probes: POST /ffprobe/analyze of the account's clip (charged, like a sync run).
import type { LoadAccount, LoadContext } from './context.js';

export async function probe(ctx: LoadContext, a: LoadAccount): Promise<void> {
  await ctx.client.api('probe', a, 'POST', '/ffprobe/analyze', {
    file_path: `${a.dirId}/clip.mp4`,
    probe: { format: ['duration', 'size'] },
  });
}
