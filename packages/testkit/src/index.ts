export * from './nats.js';
export * from './s3.js';
export * from './mongo.js';
export * from './tmp.js';
export * from './https.js';
export * from './spawned.js';
export * from './tcp-proxy.js';
export * from './ports.js';
