export { jobsConfigSpec, type JobsConfig } from './config.js';
export { startJobs } from './server.js';
