export { jobsConfigSpec, type JobsConfig } from './config.js';
export { startJobs } from './server.js';
// For tools that seed a stopped service's database (the console benchmark).
export { openJobsRepository } from './adapters/repository.js';
export { newJobDoc } from './domain/job-doc.js';
