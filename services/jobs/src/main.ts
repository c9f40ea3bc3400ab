// Jobs service process: configuration from the environment, then serve.
import { loadConfig, runMain } from '@media/platform';
import { jobsConfigSpec } from './config.js';
import { startJobs } from './server.js';

runMain(() => startJobs(loadConfig(jobsConfigSpec, process.env)), 'jobs');
