// npm run chaos -- --minutes 10 [--replicas 2] [--report chaos-report.json] [--seed N] [--no-faults]:
// the cluster under a steady mixed load and faults; prints the report, writes it as JSON, exits 1
// if any invariant is broken (2 if the run itself could not be made). Test-only failpoints
// (MEDIA_FAILPOINT_*) in this process's environment are passed on to the cluster's processes.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { jsonReport, printable } from './report.js';
import { runChaos } from './run.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    replicas: { type: 'string', default: '2' },
    report: { type: 'string' },
    seed: { type: 'string' },
    'no-faults': { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
const replicas = Number(values.replicas);
if (!(minutes > 0 && minutes <= 240)) {
  console.error('npm run chaos: --minutes must be more than 0 and at most 240');
  process.exit(2);
}
try {
  const result = await runChaos({
    minutes,
    replicas,
    seed: values.seed === undefined ? undefined : Number(values.seed),
    faults: !values['no-faults'],
    env: Object.fromEntries(
      Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('MEDIA_FAILPOINT_') && e[1] !== undefined),
    ),
    log: (line) => console.log(line),
  });
  console.log(`\n${printable(result, minutes, replicas)}`);
  if (values.report) {
    writeFileSync(values.report, `${JSON.stringify(jsonReport(result, minutes, replicas), null, 2)}\n`);
    console.log(`\nJSON report: ${values.report}`);
  }
  process.exit(result.ok ? 0 : 1);
} catch (err) {
  console.error(`npm run chaos: ${(err as Error).stack ?? err}`);
  process.exit(2);
}
