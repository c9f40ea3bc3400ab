// The request id given by the caller reaches the handler's async context and its log lines.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { AuthService } from '@media/proto/media/auth/v1/auth_pb.js';
import { HealthCheckResponse_ServingStatus, Health } from '@media/proto/grpc/health/v1/health_pb.js';
import { createServiceClient, currentRequestId, startConnectServer, withRequestId, DomainError } from '../src/index.js';

test('request id travels client -> server, into logs; domain errors keep code and text', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const logger = pino({ mixin: () => ({ requestId: currentRequestId() }) }, sink);
  const server = await startConnectServer({
    name: 'test',
    logger,
    host: '127.0.0.1',
    port: 0,
    health: { services: [AuthService.typeName] },
    routes: (router) =>
      router.service(AuthService, {
        async authenticate(req) {
          logger.info('handling');
          if (req.authorization === 'fail') throw new DomainError('forbidden', 'No.');
          return { accountId: currentRequestId() ?? 'none', keyId: '' };
        },
      }),
  });
  const { client, close } = createServiceClient(AuthService, server.url);
  const health = createServiceClient(Health, server.url);
  try {
    const res = await withRequestId('req_abc', () => client.authenticate({ authorization: 'x' }));
    expect(res.accountId).toBe('req_abc');
    expect(lines.some((l) => JSON.parse(l).requestId === 'req_abc' && l.includes('handling'))).toBe(true);
    await expect(client.authenticate({ authorization: 'fail' })).rejects.toMatchObject({ code: 7, rawMessage: 'No.' });
    expect((await health.client.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await health.client.check({ service: AuthService.typeName })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    await expect(health.client.check({ service: 'nope' })).rejects.toMatchObject({ code: 5 });
  } finally {
    close();
    health.close();
    await server.close();
  }
});
