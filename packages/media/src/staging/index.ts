export * from './staging.js';
export * from './media-probe.js';
