// npm start with a port already taken: the start error names the setting that chose it.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePorts, root, spawnStack, tempDir } from '@media/testkit';

let held: Server;
let port: number;
beforeAll(async () => {
  // "Another process" holding a port: a listener of this test's.
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  port = (held.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => held.close(resolve)));

/** What npm start printed and its exit code, when it is expected to fail. */
async function startFails(env: Record<string, string>): Promise<string> {
  const started = spawnStack(env);
  started.then(
    (s) => s.stop(),
    () => undefined,
  );
  const err = await started.then(
    () => new Error('npm start came up'),
    (e: Error) => e,
  );
  return err.message;
}

test.each(['PORT', 'DOCS_PORT', 'CONSOLE_PORT', 'STORAGE_HTTP_PORT', 'METRICS_PORT'])(
  '%s taken: exit 1 with a sentence naming the setting',
  async (setting) => {
    expect(await startFails({ [setting]: String(port) })).toBe(
      `exited 1:\nmedia-service: failed to start: ${setting} ${port} is already in use (by another process); set ${setting} to a free port, or 0 for any\n`,
    );
  },
);

test('PORT and DOCS_PORT set to the same port: both named', async () => {
  const [free] = await freePorts(1);
  expect(await startFails({ PORT: String(free), DOCS_PORT: String(free) })).toBe(
    `exited 1:\nmedia-service: failed to start: PORT and DOCS_PORT are both ${free}; give each a port of its own (or 0 for any free one)\n`,
  );
});

// A process of the chart started alone (its own main.ts) names its own settings, defaults included.
test.each([
  ['BILLING_PORT', {}],
  ['METRICS_PORT', { BILLING_PORT: '0' }],
])('a service started alone with %s taken: exit 1 naming it', async (setting, extra) => {
  const dataDir = await tempDir('port-in-use-');
  try {
    const env = { PATH: process.env.PATH!, DATA_DIR: dataDir.path, [setting]: String(port), ...extra };
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [join(root, 'services/billing/dist/main.js')], { env }, (_err, _out, stderr) =>
        resolve({ code: child.exitCode, stderr }),
      );
    });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n').at(-1)).toBe(
      `billing: failed to start: ${setting} ${port} is already in use (by another process); set ${setting} to a free port, or 0 for any`,
    );
  } finally {
    await dataDir.remove();
  }
});
