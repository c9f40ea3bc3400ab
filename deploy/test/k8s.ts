// kubernetes-models classes by kind, to validate rendered manifests against the Kubernetes OpenAPI
// schemas. The package is CommonJS with getter exports, so it is loaded through require.
import { createRequire } from 'node:module';
import type { Doc } from '../src/helm.js';

const require = createRequire(import.meta.url);

interface Model {
  validate(): void;
}
type ModelClass = new (data: object) => Model;

const classes: Record<string, ModelClass> = {
  'apps/v1/Deployment': require('kubernetes-models/apps/v1/Deployment').Deployment,
  'v1/Service': require('kubernetes-models/v1/Service').Service,
  'v1/ConfigMap': require('kubernetes-models/v1/ConfigMap').ConfigMap,
  'v1/Secret': require('kubernetes-models/v1/Secret').Secret,
  'v1/ServiceAccount': require('kubernetes-models/v1/ServiceAccount').ServiceAccount,
  'autoscaling/v2/HorizontalPodAutoscaler': require('kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler').HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': require('kubernetes-models/networking.k8s.io/v1/Ingress').Ingress,
  'networking.k8s.io/v1/NetworkPolicy': require('kubernetes-models/networking.k8s.io/v1/NetworkPolicy').NetworkPolicy,
  'policy/v1/PodDisruptionBudget': require('kubernetes-models/policy/v1/PodDisruptionBudget').PodDisruptionBudget,
};

/** Validates one manifest with its model class; throws for an unknown kind or an invalid one. */
export function validateManifest(doc: Doc): void {
  const Model = classes[`${doc.apiVersion}/${doc.kind}`];
  if (!Model) throw new Error(`no kubernetes-models class for ${doc.apiVersion} ${doc.kind}`);
  new Model(doc).validate();
}
