// Sync tasks: POST /ffmpeg/process, waited for (a 60 s client timeout; a 503 is a spec answer).
import { frameTask, type LoadAccount, type LoadContext } from './context.js';

export async function syncTask(ctx: LoadContext, a: LoadAccount): Promise<void> {
  await ctx.client.api('sync', a, 'POST', '/ffmpeg/process', { task: frameTask(a, 'sync') });
}
