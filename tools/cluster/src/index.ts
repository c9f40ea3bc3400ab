// The cluster as a library: `npm run cluster` (main.ts), its test, and the chaos run that drives
// load and faults against it start it through here.
export { startCluster, REPO_ROOT, type Cluster, type ClusterOptions } from './cluster.js';
export { COMPONENTS, type Component } from './chart-env.js';
export { serverStates, type ServerState } from './haproxy.js';
export { ClusterProcess, type ProcessInfo } from './process.js';
export { missingBinaries } from './system.js';
