// The canary counts every connection from this process and its children (the code under test,
// ffmpeg included) and sets aside only those from unrelated processes (other test suites).
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { startCanaryServer, type CanaryServer } from '@media/testkit';

let canary: CanaryServer;
beforeEach(async () => {
  canary = await startCanaryServer('127.0.0.1');
});
afterEach(() => canary.stop());

const CLIENT = (port: number) =>
  `require('node:net').connect(${port}, '127.0.0.1').on('error', () => {}).on('close', () => process.exit(0))`;

async function eventually(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a connection from this process counts', async () => {
  await new Promise<void>((resolve) =>
    connect(canary.port, '127.0.0.1')
      .on('error', () => {})
      .on('close', () => resolve()),
  );
  expect({ connections: canary.connections, strays: canary.strays }).toEqual({ connections: 1, strays: 0 });
});

test('a connection from a child process counts (as one from ffmpeg would)', async () => {
  const child = spawn(process.execPath, ['-e', CLIENT(canary.port)], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  expect({ connections: canary.connections, strays: canary.strays }).toEqual({ connections: 1, strays: 0 });
});

test('a connection from an unrelated process is set aside, not counted', async () => {
  // sh exits at once, so the client it starts is orphaned: no longer a descendant of this process.
  const sh = spawn('sh', ['-c', `"${process.execPath}" -e "${CLIENT(canary.port)}" >/dev/null 2>&1 &`], { stdio: 'ignore' });
  await new Promise((resolve) => sh.on('exit', resolve));
  await eventually(() => canary.strays + canary.connections > 0);
  expect({ connections: canary.connections, strays: canary.strays }).toEqual({ connections: 0, strays: 1 });
});
