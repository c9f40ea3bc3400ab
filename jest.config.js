// Tests run on the TypeScript sources through swc (no build step); `tsc -b` type-checks separately.
import { existsSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import vm from 'node:vm';

// The tests are ES modules: without Node's flag, jest fails on the first ESM-only import with a
// misleading "Cannot find module" (e.g. 'file-type'). Say what to run instead.
if (typeof vm.SourceTextModule !== 'function') {
  process.stderr.write(
    'The tests need NODE_OPTIONS=--experimental-vm-modules: run `npm test -- <file>` (it builds first), ' +
      'or `NODE_OPTIONS=--experimental-vm-modules npx jest <file>`.\n',
  );
  process.exit(1);
}

/** The folders of `dir` that are workspaces with sources (a src/index.ts). */
const workspacesIn = (dir) =>
  readdirSync(new URL(`./${dir}/`, import.meta.url), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(new URL(`./${dir}/${d.name}/src/index.ts`, import.meta.url)))
    .map((d) => d.name);
// packages/<name> is @media/<name>, services/<name> is @media/svc-<name>: a new one needs no edit here.
const packages = workspacesIn('packages').join('|');
const services = workspacesIn('services').join('|');

const swcEsm = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }];
// light-my-request (fastify.inject) require()s the ESM-only `cookie`, and @fastify/static (the API
// reference's files) the ESM-only `content-disposition`: hand jest CommonJS copies.
const swcCjs = ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }];

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': swcEsm,
    '/node_modules/(cookie|content-disposition)/.+\\.js$': swcCjs,
  },
  transformIgnorePatterns: ['/node_modules/(?!(cookie|content-disposition)/)(?!.*/node_modules/(cookie|content-disposition)/)'],
  moduleNameMapper: {
    '^@media/proto/(.*)\\.js$': '<rootDir>/proto/gen/$1.ts',
    [`^@media/(${packages})$`]: '<rootDir>/packages/$1/src/index.ts',
    '^@media/stack/testing$': '<rootDir>/packages/stack/src/testing.ts',
    '^@media/client/node$': '<rootDir>/packages/client/src/node.ts',
    [`^@media/svc-(${services})$`]: '<rootDir>/services/$1/src/index.ts',
    '^@media/gateway$': '<rootDir>/gateway/src/index.ts',
    '^@media/console$': '<rootDir>/console/src/index.ts',
    '^@media/tool-cluster$': '<rootDir>/tools/cluster/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: ['<rootDir>/**/test/**/*.test.ts'],
  // The chaos run (minutes of a whole cluster under load) is a CI step of its own (.ci/run): in
  // `npm test` it would compete with every other suite for the CPU.
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/tools/chaos/test/chaos-run\\.test\\.ts$'],
  globalSetup: '<rootDir>/packages/testkit/src/global-setup.ts',
  testTimeout: 60000,
  // Most suites wait on sockets, child processes and timers rather than the CPU. Jest's default
  // (one worker fewer than the cores) runs one file at a time on a 2-core CI machine: the
  // embedded suite took 445 s there, against 151 s with three workers; with four, the CPU stays
  // busy while some files wait (225 s -> 201 s for the whole suite on 2 cores). (A percentage
  // above 100% would be read as that many workers.)
  maxWorkers: availableParallelism() + 2,
};
