// Where the deployment artefacts live, for the tests and for tools that render the chart.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The Helm chart folder. */
export const chartDir = `${root}helm/media-service`;
/** The multi-stage Dockerfile (build context: the repository root). */
export const dockerfile = `${root}docker/Dockerfile`;
