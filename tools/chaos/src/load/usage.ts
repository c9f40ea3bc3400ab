// Usage exports during the load: GET /account/usage as JSON (the end checks page through all of it).
import type { LoadAccount, LoadContext } from './context.js';

export async function usageExport(ctx: LoadContext, a: LoadAccount): Promise<void> {
  await ctx.client.api('usage', a, 'GET', '/account/usage?format=json&limit=100');
}
