// `npx jest <file>` without Node's ESM flag stops at once with what to run, instead of jest's
// misleading "Cannot find module 'file-type'" from the first ESM-only import.
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const file = 'gateway/test/configured-limits.test.ts';
/** This process's environment without the flag `npm test` sets. */
const { NODE_OPTIONS: _flag, ...plainEnv } = process.env;

test('plain `npx jest <file>` says what to run, exit 1', async () => {
  const { exitCode, stdout, stderr } = await execa('npx', ['jest', file], { cwd: root, env: plainEnv, extendEnv: false, reject: false });
  expect({ exitCode, stdout, stderr }).toEqual({
    exitCode: 1,
    stdout: '',
    stderr:
      'The tests need NODE_OPTIONS=--experimental-vm-modules: run `npm test -- <file>` (it builds first), ' +
      'or `NODE_OPTIONS=--experimental-vm-modules npx jest <file>`.',
  });
}, 30_000);

test('with the flag, the configuration loads and finds the file', async () => {
  const env = { ...plainEnv, NODE_OPTIONS: '--experimental-vm-modules' };
  const { exitCode, stdout } = await execa('npx', ['jest', '--listTests', file], { cwd: root, env, extendEnv: false, reject: false });
  expect({ exitCode, stdout }).toEqual({ exitCode: 0, stdout: `${root}${file}` });
}, 30_000);
