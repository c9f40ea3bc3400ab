// grpc.health.v1 as the chart's probes ask it: the overall status follows the dependency check
// (readiness), "liveness" only needs the process to answer (a database outage restarts nothing).
import { pino } from 'pino';
import { Health, HealthCheckResponse_ServingStatus as Status } from '@media/proto/grpc/health/v1/health_pb.js';
import { createServiceClient, LIVENESS_SERVICE, startConnectServer, type RunningServer } from '../src/index.js';

let databaseUp = true;
let server: RunningServer;
let health: ReturnType<typeof createServiceClient<typeof Health>>;
beforeAll(async () => {
  server = await startConnectServer({
    name: 'health-test',
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    routes: () => {},
    health: { services: ['media.test.v1.TestService'], check: async () => databaseUp },
  });
  health = createServiceClient(Health, server.url, { breaker: false });
});
afterAll(async () => {
  health?.close();
  await server?.close();
});

test('a dependency down: NOT_SERVING overall and per service, SERVING for liveness', async () => {
  const check = async (service: string) => (await health.client.check({ service })).status;
  expect(await check('')).toBe(Status.SERVING);
  databaseUp = false;
  expect(await check('')).toBe(Status.NOT_SERVING);
  expect(await check('media.test.v1.TestService')).toBe(Status.NOT_SERVING);
  expect(await check(LIVENESS_SERVICE)).toBe(Status.SERVING);
  databaseUp = true;
  expect(await check('')).toBe(Status.SERVING);
  await expect(check('nope')).rejects.toMatchObject({ rawMessage: 'unknown service nope' });
});
