export { MediaClient, FINISHED_STATES } from './client.js';
export type * from './client.js';
export { MediaApiError, errorFrom } from './errors.js';
export { retryingFetch, type RetryOptions } from './retry.js';
export type { paths, components, operations } from './api.js';
