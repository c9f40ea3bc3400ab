// Async jobs: POST /ffmpeg/process/async with a webhook to the local HTTPS receiver. The 202's
// job id is recorded with the call; the end checks read every job's state.
import { frameTask, type LoadAccount, type LoadContext } from './context.js';

export async function asyncJob(ctx: LoadContext, a: LoadAccount): Promise<void> {
  await ctx.client.api('async', a, 'POST', '/ffmpeg/process/async', { task: frameTask(a, 'async'), webhook_url: ctx.webhookUrl(a.label) });
}
