export * from './policy/index.js';
export * from './net/index.js';
export * from './ffmpeg/index.js';
export * from './staging/index.js';
export * from './usage.js';
export { openMediaRuntime, type MediaRuntime, type MediaRuntimeConfig } from './service-runtime.js';
