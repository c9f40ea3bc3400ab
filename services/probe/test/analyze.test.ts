// analyze() against fakes of Storage and Jobs: how each outcome ends its admission (completed with
// usage, failed with the error text, or removed for a refused request) and what is charged.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@connectrpc/connect';
import { JobKind, JobStatus, type JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import type { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { parseCidrList, validateProbeOptions, defaultProbeSpec, type ProbeSpec } from '@media/media';
import { createLogger, Events, subscribeEvent } from '@media/platform';
import { analyze, type AnalyzeDeps } from '../src/domain/analyze.js';

const run = promisify(execFile);

let dir: string;
let bus: EventBus;
let finished: Record<string, unknown>[];
let charges: { requestId: string; kind: JobKind; gbSec: number }[];
let deps: AnalyzeDeps;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'probe-analyze-'));
  await run('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=1:size=64x48:rate=25',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    join(dir, 'a.mp4'),
  ]);
  await run('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=1:size=64x48:rate=25',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-f',
    'h264',
    join(dir, 'raw.h264'),
  ]);
  await writeFile(join(dir, 'list.mp4'), 'ffconcat version 1.0\nfile /etc/passwd\n');
  bus = await connectEventBus({});
  charges = [];
  await subscribeEvent(
    bus,
    Events.usageCharged,
    async (e) => void charges.push({ requestId: e.requestId, kind: e.kind, gbSec: e.usage!.gbSec }),
  );
});
afterAll(async () => {
  await bus?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  finished = [];
  let n = 0;
  // Storage: every file of the fixture directory is "uploaded" and on this disk.
  const storage = {
    async resolveFile(req: { file: { fileName: string } }) {
      const path = join(dir, req.file.fileName);
      return { fileInfo: { fileSize: BigInt((await stat(path)).size) }, localPath: path };
    },
  } as unknown as Client<typeof StorageService>;
  const jobs = {
    async admitJob() {
      return { jobId: `job_${String(++n).padStart(20, '0')}` };
    },
    async finishJob(req: Record<string, unknown>) {
      finished.push(req);
      return {};
    },
  } as unknown as Client<typeof JobsService>;
  deps = {
    storage,
    jobs,
    bus,
    logger: createLogger('probe-test', 'silent'),
    workRoot: join(dir, 'work'),
    timeoutMs: 30_000,
    allowlist: parseCidrList(''),
  };
});

const who = { accountId: 'acc_a', keyId: 'key_a' };
const target = (fileName: string, spec: ProbeSpec = defaultProbeSpec()) => ({
  input: { kind: 'uploaded' as const, dirId: 'dir_a', fileName, filePath: `dir_a/${fileName}` },
  filePath: `dir_a/${fileName}`,
  spec,
});

test('success: charged once (kind probe), admission completed with the same usage, work directory removed', async () => {
  const done = await analyze(deps, who, target('a.mp4'));
  expect(done.result.format).toMatchObject({ filename: 'dir_a/a.mp4', format_name: 'mov,mp4,m4a,3gp,3g2,mj2' });
  expect(charges.filter((c) => c.requestId === done.requestId)).toEqual([
    { requestId: done.requestId, kind: JobKind.PROBE, gbSec: done.usage.gbSec },
  ]);
  expect(finished).toEqual([
    { accountId: 'acc_a', jobId: done.requestId, status: JobStatus.COMPLETED, usage: done.usage, amountUsd: done.amountUsd },
  ]);
  expect(await readdir(join(dir, 'work'))).toEqual([]);
});

test('ffprobe failure: admission failed with the error text, nothing charged', async () => {
  const before = charges.length;
  const spec = validateProbeOptions({ packets: [], read_intervals: '0.5%+0.2' });
  const err = await analyze(deps, who, target('raw.h264', spec)).catch((e: Error) => e);
  expect((err as Error).message).toMatch(/^FFprobe command failed with exit code 1: /);
  expect(finished).toEqual([
    { accountId: 'acc_a', jobId: expect.stringMatching(/^job_/), status: JobStatus.FAILED, error: (err as Error).message },
  ]);
  expect(charges.length).toBe(before);
  expect(await readdir(join(dir, 'work'))).toEqual([]);
});

test('a refused input (a concat list): admission removed, nothing charged', async () => {
  const before = charges.length;
  await expect(analyze(deps, who, target('list.mp4'))).rejects.toMatchObject({
    status: 400,
    message: "Input file 'list.mp4' is not a supported media file: it is a concat list",
  });
  expect(finished).toEqual([{ accountId: 'acc_a', jobId: expect.stringMatching(/^job_/), status: JobStatus.UNSPECIFIED }]);
  expect(charges.length).toBe(before);
});
