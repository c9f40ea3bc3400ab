export * from './staging.js';
export * from './media-probe.js';
export * from './work-sweep.js';
export * from './stage-plan.js';
