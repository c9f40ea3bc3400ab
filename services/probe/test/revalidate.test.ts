// The Probe service does not trust the gateway: a request the gateway would refuse is refused by
// the service too, with the same sentence, before any other service is called (Storage and Jobs
// are unreachable addresses here, so any call would fail differently) and before any connection.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import { ProbeService } from '@media/proto/media/probe/v1/probe_pb.js';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { createServiceClient, loadConfig, type RunningService, type ServiceClient } from '@media/platform';
import { startCanaryServer } from '@media/testkit';
import { probeConfigSpec, startProbe } from '../src/index.js';

let dataDir: string;
let bus: EventBus;
let probe: RunningService;
let rpc: ServiceClient<typeof ProbeService>;
let canary: Awaited<ReturnType<typeof startCanaryServer>>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'probe-svc-'));
  bus = await connectEventBus({});
  canary = await startCanaryServer('127.0.0.1');
  const env = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PROBE_PORT: '0',
    // The canary stands in for Storage and Jobs: the refusals below must never reach it.
    STORAGE_URL: `http://127.0.0.1:${canary.port}`,
    JOBS_URL: `http://127.0.0.1:${canary.port}`,
  };
  probe = await startProbe(loadConfig(probeConfigSpec, env), { bus });
  rpc = createServiceClient(ProbeService, probe.url, { breaker: false });
});
afterAll(async () => {
  rpc?.close();
  await probe?.close();
  await canary?.stop();
  await bus?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const analyze = (filePath: string, probeOptions?: Record<string, unknown>) =>
  rpc.client.analyze({ accountId: 'acc_a', keyId: 'key_a', filePath, probe: probeOptions });

async function refused(call: Promise<unknown>): Promise<string> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectError);
  expect((err as ConnectError).code).toBe(Code.InvalidArgument);
  return (err as ConnectError).rawMessage;
}

test.each([
  ['no-slash', undefined, 'Invalid file_path format. Expected <dir_id>/<file_name>'],
  ['../etc/passwd', undefined, 'Invalid file_path format. Expected <dir_id>/<file_name>'],
  ['http://example.com/a.mp4', undefined, "file_path 'http://example.com/a.mp4' must be a public HTTPS URL (https://...)"],
  ['dir_a/a.mp4', { sections: {} }, 'probe must name at least one section: format, streams, chapters, programs, frames, packets, error'],
  ['dir_a/a.mp4', { sections: { stream: { entries: [] } } }, expect.stringMatching(/^Unknown field 'stream' in probe/)],
  [
    'dir_a/a.mp4',
    { sections: { format: { entries: ['duration,size:stream=index'] } } },
    expect.stringMatching(/^probe\.format\[0\] .* is not an entry name/),
  ],
  ['dir_a/a.mp4', { sections: { frames: { entries: [] } } }, expect.stringMatching(/^probe\.frames needs probe\.read_intervals/)],
  [
    'dir_a/a.mp4',
    { sections: { frames: { entries: [] } }, readIntervals: ['%+#3001'] },
    "probe.read_intervals: an interval may span at most 30 seconds or 3000 frames; '%+#3001' spans 3001 frames",
  ],
  [
    'dir_a/a.mp4',
    { sections: { format: { entries: [] } }, selectStreams: 'v -show_data' },
    expect.stringMatching(/^probe\.select_streams/),
  ],
  ['dir_a/a.mp4', { sections: { format: { entries: [] } }, analyzedurationSec: 61 }, 'probe.analyzeduration may be at most 60 seconds'],
  [
    'dir_a/a.mp4',
    { sections: { format: { entries: [] } }, probesizeBytes: 50_000_001n },
    'probe.probesize may be at most 50000000 bytes (50 MB)',
  ],
  [
    'dir_a/a.mp4',
    { sections: { streams: { entries: [] } }, countFrames: true },
    expect.stringMatching(/^probe\.count_frames needs probe\.read_intervals/),
  ],
])('%s %j -> 400', async (filePath, probeOptions, message) => {
  expect(await refused(analyze(filePath, probeOptions))).toEqual(message);
  expect(canary.connections).toBe(0);
});

test('a URL on a non-public address is refused before any connection', async () => {
  expect(await refused(analyze(`https://127.0.0.1:${canary.port}/a.mp4`))).toMatch(/public/i);
  expect(canary.connections).toBe(0);
});

test('account_id is required', async () => {
  expect(await refused(rpc.client.analyze({ filePath: 'dir_a/a.mp4' }))).toBe('account_id is required');
});
