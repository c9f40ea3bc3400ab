// One Jobs-like Connect/gRPC server in its own process, for the rpc-server benchmark: the same
// router (GetJob answering a completed job with one result, the services' interceptors) on either
// plumbing: `connect-node`, the services' own HTTP/2 server (startConnectServer), or
// `connect-fastify`, Fastify with HTTP/2 and @connectrpc/connect-fastify. Prints its URL.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ConnectRouter } from '@connectrpc/connect';
import { fastifyConnectPlugin } from '@connectrpc/connect-fastify';
import { GetJobResponseSchema, JobKind, JobsService, JobStatus } from '@media/proto/media/jobs/v1/jobs_pb.js';
import {
  createLogger,
  registerHealth,
  registerReflection,
  serverInterceptor,
  startConnectServer,
  tracingServerInterceptor,
} from '@media/platform';
import Fastify from 'fastify';

const kind = process.argv[2];
const logger = createLogger('rpc-bench', 'warn');
const now = new Date();
const answer = create(GetJobResponseSchema, {
  job: {
    jobId: 'job_0123456789abcdef',
    accountId: 'acc_0123456789abcdef',
    status: JobStatus.COMPLETED,
    kind: JobKind.ASYNC,
    createdAt: timestampFromDate(now),
    updatedAt: timestampFromDate(now),
    completedAt: timestampFromDate(now),
    inputCount: 1,
    outputCount: 1,
    result: [{ fileName: 'out.mp4', sizeBytes: 1234567n, downloadUrl: `https://files.example/${'x'.repeat(180)}` }],
    usage: { timeSec: 12.5, inputSizeGb: 0.01, outputSizeGb: 0.001, gbSec: 25 },
    amountUsd: 0.0125,
  },
});
const routes = (router: ConnectRouter) => {
  router.service(JobsService, { getJob: async () => answer });
};

if (kind === 'connect-node') {
  const server = await startConnectServer({
    name: 'rpc-bench',
    logger,
    routes,
    health: { services: [JobsService.typeName] },
    host: '127.0.0.1',
    port: 0,
  });
  process.stdout.write(`${server.url}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
} else if (kind === 'connect-fastify') {
  const app = Fastify({ http2: true, logger: false });
  // The interceptors startConnectServer puts first, so the two differ only in their plumbing.
  // Health and reflection as startConnectServer adds them.
  const withExtras = (router: ConnectRouter) => {
    routes(router);
    registerHealth(router, { services: [JobsService.typeName] });
    registerReflection(router);
  };
  await app.register(fastifyConnectPlugin, { routes: withExtras, interceptors: [tracingServerInterceptor, serverInterceptor(logger)] });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${url}\n`);
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
} else {
  throw new Error(`usage: rpc-server.js connect-node|connect-fastify (got ${kind})`);
}
