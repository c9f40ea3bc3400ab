// npm run chaos, short: about 3 minutes of load with every fault kind at least once, failing on any
// broken invariant; then the fault-catch run: with the double-charge failpoint on (and no faults,
// so nothing else can explain it), `npm run chaos` reports doubled charges and exits 1. Skipped
// outside CI without nats-server and haproxy; under CI=true, missing them fails.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { underCI } from '@media/testkit';
import { missingBinaries } from '@media/tool-cluster';
import { FAULT_KINDS, printable, runChaos } from '../src/index.js';

const { missing, hint } = missingBinaries();
const skip = missing.length > 0 && !underCI;
if (skip) console.warn(`tools/chaos: skipped, ${missing.join(' and ')} missing (${hint})`);
const suite = skip ? describe.skip : describe;

const MINUTES = 3;
const log = (line: string) => process.stderr.write(`${line}\n`);

suite('npm run chaos', () => {
  test(
    `${MINUTES} minutes with every fault kind: every invariant holds`,
    async () => {
      const result = await runChaos({ minutes: MINUTES, seed: Number(process.env.CHAOS_SEED ?? 41), log });
      log(printable(result, MINUTES, 2));
      expect(new Set(result.data.faults.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
      expect(result.data.faults.filter((f) => f.error)).toEqual([]);
      expect(result.verdicts.filter((v) => !v.ok).map((v) => ({ [v.name]: v.violations.slice(0, 10) }))).toEqual([]);
    },
    20 * 60_000,
  );

  test(
    'the fault-catch run: with charges doubled by the failpoint, the run reports it and exits 1',
    async () => {
      const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
      const child = spawn(process.execPath, [main, '--minutes', '0.5', '--no-faults', '--seed', '1'], {
        env: { ...process.env, MEDIA_FAILPOINT_DOUBLE_CHARGE: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.stderr.on('data', (d: Buffer) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      log(out);
      expect(code).toBe(1);
      // Every charged answer's charge is there once under its own id, and once more under another.
      expect(out).toMatch(/\[BROKEN\] charged exactly once: .* [1-9]\d* doubled/);
      expect(out).toMatch(/- doubled charge: one charge recorded under 2 request ids/);
    },
    10 * 60_000,
  );
});
