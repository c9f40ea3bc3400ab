// npm start with a port already taken: the start error names the setting that chose it.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { freePorts, spawnStack } from '@media/testkit';

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
