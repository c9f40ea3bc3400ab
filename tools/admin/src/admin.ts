// npm run -s admin -- <command>: prints one JSON object on stdout (errors: one on stderr, exit 1).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConnectError } from '@connectrpc/connect';
import { AuthAdminService } from '@media/proto/media/auth/v1/auth_pb.js';
import { createServiceClient } from '@media/platform';
import { runCommand, USAGE, UsageError } from './commands.js';

/** AUTH_ADMIN_URL, else the URL `npm start` recorded under DATA_DIR, else the default port. */
function adminUrl(env: NodeJS.ProcessEnv): string {
  if (env.AUTH_ADMIN_URL) return env.AUTH_ADMIN_URL;
  try {
    return readFileSync(join(env.DATA_DIR ?? './.data', 'run', 'auth-admin-url'), 'utf8').trim();
  } catch {
    return 'http://127.0.0.1:50061';
  }
}

async function main(): Promise<number> {
  const { client, close } = createServiceClient(AuthAdminService, adminUrl(process.env), { breaker: false });
  try {
    const parsed = parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: { status: { type: 'string' }, account: { type: 'string' }, name: { type: 'string' }, 'expires-at': { type: 'string' } },
    });
    const out = await runCommand(client, parsed);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } catch (err) {
    const error = err instanceof ConnectError ? err.rawMessage : err instanceof Error ? err.message : String(err);
    process.stderr.write(`${JSON.stringify({ error, ...(err instanceof UsageError || err instanceof TypeError ? { usage: USAGE } : {}) })}\n`);
    return 1;
  } finally {
    close();
  }
}

process.exitCode = await main();
