export { storageConfigSpec, type StorageConfig } from './config.js';
export { startStorage, type RunningStorage, type StorageTestOptions } from './server.js';
export { fileNameProblem, isDirId, MAX_FILE_BYTES } from './domain/rules.js';
