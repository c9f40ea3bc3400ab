#!/usr/bin/env node
// `npx media ...` from the repository: runs the built CLI, building it first when it is not
// (after `npm ci` alone; `npm start` and `npm test` build everything).
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../dist/main.js', import.meta.url));
if (!existsSync(built)) {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  process.stderr.write('media: building the CLI once (tsc -b tools/cli)...\n');
  // tsc's messages to stderr: stdout belongs to the command (the protocol, for `media mcp`).
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-b', 'tools/cli'], { cwd: root, stdio: ['ignore', 2, 2] });
}
await import(built);
