// The client outside the repository, as its README says: `npm pack` makes a tarball that a
// project installs. Unpacked into a project of its own (with only the dependencies its
// package.json declares, taken from this repository: the test has no registry), it is imported
// from a plain Node ESM script against a running service, and its types check from TypeScript.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestStack, type TestStack } from '@media/stack/testing';

const run = promisify(execFile);
const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const root = join(pkgDir, '../..');

let project: string;
let stack: TestStack;
beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'client-packed-'));
  stack = await startTestStack();
  // As the README says: npm pack in packages/client (its prepack builds it).
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', project], { cwd: pkgDir });
  const tarball = join(project, stdout.trim().split('\n').at(-1)!);
  const installed = join(project, 'node_modules/@media/client');
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const dep of Object.keys(manifest.dependencies)) await symlink(join(root, 'node_modules', dep), join(project, 'node_modules', dep));
  await writeFile(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await rm(project, { recursive: true, force: true });
});

test('the tarball holds the built entry points and no sources or tests', async () => {
  const { stdout } = await run('tar', ['-tzf', join(project, 'media-client-0.1.0.tgz')]);
  const files = stdout.trim().split('\n').sort();
  expect(files).toEqual(
    expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/node.js', 'package/README.md']),
  );
  expect(files.filter((f) => /\/(src|test)\/|\.map$|tsbuildinfo/.test(f))).toEqual([]);
});

test('a plain Node ESM script imports it and uploads, runs and reads a job', async () => {
  const { key } = await stack.newAccount();
  await writeFile(
    join(project, 'use.mjs'),
    `import { MediaClient } from '@media/client';
import { uploadFile } from '@media/client/node';
import { writeFile } from 'node:fs/promises';
const media = new MediaClient({ baseUrl: process.env.MEDIA_API_URL, apiKey: process.env.MEDIA_API_KEY });
// A 1x1 PNG.
await writeFile('in.png', Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'));
const { file } = await uploadFile(media, 'in.png');
const job = await media.run({ inputs: [{ file_path: file.file_path }], outputs: [{ file: 'out.jpg' }] }, { async: true });
console.log(JSON.stringify({ plan: (await media.account()).plan, status: job.status, files: job.result.map((r) => r.file_name) }));
`,
  );
  const { stdout } = await run(process.execPath, ['use.mjs'], {
    cwd: project,
    env: { PATH: process.env.PATH, MEDIA_API_URL: stack.gatewayUrl, MEDIA_API_KEY: key },
  });
  expect(JSON.parse(stdout)).toEqual({ plan: 'pay-as-you-go', status: 'completed', files: ['out.jpg'] });
}, 30_000);

test('its types check from a TypeScript project (nodenext)', async () => {
  await writeFile(
    join(project, 'use.ts'),
    `import { MediaClient, MediaApiError, type Task } from '@media/client';
import { downloadTo } from '@media/client/node';
const task: Task = { inputs: [{ file_path: 'dir_x/in.mp4' }], outputs: [{ file: 'out.webm' }] };
const media = new MediaClient({ baseUrl: 'http://localhost:8080', apiKey: 'mk_x' });
export const calls = [media.process(task), downloadTo('http://localhost:8081/blob/x', 'x'), MediaApiError];
// @ts-expect-error: a task without outputs is not a Task
export const wrong: Task = { inputs: [] };
`,
  );
  const config = {
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
    },
    files: ['use.ts'],
  };
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify(config));
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const { stdout } = await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch((e: { stdout: string }) => e);
  expect(stdout).toBe('');
}, 60_000);
