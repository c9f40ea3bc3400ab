// CI: the committed generated code must be exactly what `buf generate` produces, and buf lint clean.
import { execFileSync } from 'node:child_process';

const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
run('npx', ['buf', 'lint']);
run('npx', ['buf', 'generate']);
const drift = execFileSync('git', ['status', '--porcelain', '--', 'proto/gen'], { encoding: 'utf8' });
if (drift.trim()) {
  console.error(`Generated code is out of date; run \`npm run generate\` and commit:\n${drift}`);
  process.exit(1);
}
console.log('proto: lint clean, generated code up to date');
