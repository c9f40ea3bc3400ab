// Every variable a process reads is in the configuration table of docs/operations, and every
// variable the table names is read by some process: operators configure from that table.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { consoleConfigSpec } from '@media/console';
import { gatewayConfigSpec } from '@media/gateway';
import { authConfigSpec } from '@media/svc-auth';
import { billingConfigSpec } from '@media/svc-billing';
import { jobsConfigSpec } from '@media/svc-jobs';
import { probeConfigSpec } from '@media/svc-probe';
import { storageConfigSpec } from '@media/svc-storage';

const page = readFileSync(fileURLToPath(new URL('../../docs/operations/configuration.md', import.meta.url)), 'utf8');
const section = page.slice(0, page.indexOf('\n## The console'));
const tableRows = section.split('\n').filter((l) => l.startsWith('| `'));
// The first column of each row: one or more `NAME`s.
const documented = new Set(tableRows.flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));

const read = new Set([
  ...[consoleConfigSpec, gatewayConfigSpec, authConfigSpec, billingConfigSpec, jobsConfigSpec, probeConfigSpec, storageConfigSpec].flatMap(
    (spec) => Object.keys(spec),
  ),
  // Read outside the specs: the S3 blob store's variables (Storage), the console's, and the one
  // that switches traces on (packages/platform/src/tracing.ts; the SDK reads the other OTEL_*).
  'S3_BUCKET',
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
  'S3_PUBLIC_ENDPOINT',
  'AUTH_ADMIN_URL',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
]);

test('the table has its rows (the control)', () => {
  expect(tableRows.length).toBeGreaterThan(30);
  expect(documented.has('PORT')).toBe(true);
});

test('every variable read is documented', () => {
  expect([...read].filter((name) => !documented.has(name)).sort()).toEqual([]);
});

test('every documented variable is read', () => {
  expect([...documented].filter((name) => !read.has(name)).sort()).toEqual([]);
});
