// node --openssl-legacy-provider s3-main.js: s3rver on S3RVER_PORT, objects under S3RVER_DIR, the
// bucket S3RVER_BUCKET made at start; until SIGTERM.
import { createRequire } from 'node:module';

// s3rver has no types; it is CommonJS.
const S3rver = createRequire(import.meta.url)('s3rver') as new (
  options: Record<string, unknown>,
) => {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
  httpServer: { closeAllConnections(): void };
};
const server = new S3rver({
  address: '127.0.0.1',
  port: Number(process.env.S3RVER_PORT),
  directory: process.env.S3RVER_DIR,
  silent: true,
  configureBuckets: [{ name: process.env.S3RVER_BUCKET }],
});
const { port } = await server.run();
console.log(`s3rver listening on 127.0.0.1:${port}`);
const quit = () => {
  void server.close().finally(() => process.exit(0));
  server.httpServer.closeAllConnections(); // idle keep-alive clients must not hold the stop
};
process.once('SIGTERM', quit);
process.once('SIGINT', quit);
