// What the kubelet would hand a rendered container: its environment, from the chart's ConfigMap
// and Secret. Shared by the chart tests and the image smoke run (image-smoke.ts).
import { byName, type Doc } from './helm.js';

/** The chart's release name in tests and the smoke run, and the prefix of every object. */
export const FULLNAME = 'media-media-service';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

/** Secrets by name, their values decoded. */
export function decodedSecrets(docs: Doc[]): Record<string, Record<string, string>> {
  return Object.fromEntries(
    docs
      .filter((d) => d.kind === 'Secret')
      .map((s) => [
        s.metadata.name,
        Object.fromEntries(
          Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
        ),
      ]),
  );
}

/** The first container of a component's Deployment (`gateway`, `auth`, ...). */
export function container(docs: Doc[], component: string): Record<string, any> {
  return byName(docs, 'Deployment', `${FULLNAME}-${component}`).spec.template.spec.containers[0];
}

/** What the kubelet would set: envFrom sources first, then env entries (which win). */
export function containerEnv(docs: Doc[], component: string, secrets: Record<string, Record<string, string>>): Record<string, string> {
  const ctr = container(docs, component);
  const env: Record<string, string> = {};
  for (const from of ctr.envFrom ?? []) {
    if (from.configMapRef) Object.assign(env, byName(docs, 'ConfigMap', from.configMapRef.name).data);
    if (from.secretRef) Object.assign(env, secrets[from.secretRef.name]);
  }
  for (const e of (ctr.env ?? []) as EnvVar[]) {
    const ref = e.valueFrom?.secretKeyRef;
    const value = ref ? secrets[ref.name]?.[ref.key] : e.value;
    if (value === undefined) throw new Error(`${component}: ${e.name} has no value (missing Secret key?)`);
    env[e.name] = value;
  }
  return env;
}
