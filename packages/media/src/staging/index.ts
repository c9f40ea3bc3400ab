export * from './staging.js';
