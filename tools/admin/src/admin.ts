// npm run -s admin -- <command>: prints one JSON object on stdout (errors: one on stderr, exit 1).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Code, ConnectError } from '@connectrpc/connect';
import { AuthAdminService } from '@media/proto/media/auth/v1/auth_pb.js';
import { adminClientInterceptors, createServiceClient } from '@media/platform';
import { runCommand, USAGE, UsageError } from './commands.js';

/** AUTH_ADMIN_URL, else the URL `npm start` recorded under DATA_DIR, else the default port; and which. */
function adminUrl(env: NodeJS.ProcessEnv): { url: string; from: string } {
  if (env.AUTH_ADMIN_URL) return { url: env.AUTH_ADMIN_URL, from: 'AUTH_ADMIN_URL' };
  const recorded = join(env.DATA_DIR || './.data', 'run', 'auth-admin-url');
  try {
    return { url: readFileSync(recorded, 'utf8').trim(), from: recorded };
  } catch {
    return { url: 'http://127.0.0.1:50061', from: `the default (nothing recorded at ${recorded})` };
  }
}

/** CONSOLE_URL, else the web console `npm start` recorded under DATA_DIR, else its default port. */
function consoleUrl(env: NodeJS.ProcessEnv): string {
  if (env.CONSOLE_URL) return env.CONSOLE_URL;
  try {
    return readFileSync(join(env.DATA_DIR || './.data', 'run', 'console-url'), 'utf8').trim();
  } catch {
    return 'http://localhost:8083';
  }
}

/** What to do when nothing answers: npm start listens on a free port and records it under its DATA_DIR. */
const unreachable = (target: { url: string; from: string }, cause: string) =>
  `Cannot reach the console listener at ${target.url}, from ${target.from} (${cause}). Is the service running? ` +
  'Run this with the DATA_DIR npm start uses (it records the address there), or set AUTH_ADMIN_URL.';

// Nothing listening or no such host; not an Unavailable answer from a listener (its store down).
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']);
const notConnected = (err: ConnectError) =>
  err.code === Code.Unavailable && CONNECT_FAILURES.has((err.cause as NodeJS.ErrnoException | undefined)?.code ?? '');

function errorText(err: unknown, target: { url: string; from: string }): string {
  if (err instanceof ConnectError) return notConnected(err) ? unreachable(target, err.rawMessage) : err.rawMessage;
  return err instanceof Error ? err.message : String(err);
}

async function main(): Promise<number> {
  const target = adminUrl(process.env);
  // The token Auth requires when its listener faces a network (the chart's Auth pods set it).
  const { client, close } = createServiceClient(AuthAdminService, target.url, {
    breaker: false,
    interceptors: adminClientInterceptors(process.env.AUTH_ADMIN_TOKEN || undefined),
  });
  try {
    const parsed = parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: {
        status: { type: 'string' },
        account: { type: 'string' },
        name: { type: 'string' },
        'expires-at': { type: 'string' },
        rotate: { type: 'boolean' },
        'grace-hours': { type: 'string' },
      },
    });
    const out = await runCommand(client, parsed, consoleUrl(process.env));
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(
      `${JSON.stringify({ error: errorText(err, target), ...(err instanceof UsageError || err instanceof TypeError ? { usage: USAGE } : {}) })}\n`,
    );
    return 1;
  } finally {
    close();
  }
}

process.exitCode = await main();
