// A sync job is charged before its completion is recorded. If the job store is down at that moment
// the answer still stands (it was charged), and the record is written once the store is back, so
// GET /job shows the job completed rather than interrupted once its lease runs out.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { EMPTY_CIDR_LIST, planTask } from '@media/media';
import { createLogger, Errors } from '@media/platform';
import type { JobDoc } from '../src/domain/job-doc.js';
import { waitFor } from '@media/testkit';
import { jest } from '@jest/globals';
import { createBackground, type Background } from '../src/domain/background.js';
import { OUTAGE_RETRY_SCHEDULE_MS } from '../src/domain/outage-retry.js';
import { processSync, type ProcessDeps } from '../src/domain/process.js';
import { Slots } from '../src/domain/slots.js';
import { createOutputStore } from '../src/domain/stages/store-outputs.js';

/** A task as the gateway passes it, planned as Jobs plans it. */
const planOf = (task: MessageInitShape<typeof TaskSchema>) => planTask(create(TaskSchema, task));

let dir: string;
let png: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-sync-record-'));
  png = join(dir, 'in.png');
  await promisify(execFile)('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=32x32', '-frames:v', '1', png]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const dirId = 'dir_aaaaaaaaaaaaaaaaaaaa';

/** `background`, counting its work not yet settled. */
function watched(background: Background): Background & { open(): number } {
  let open = 0;
  return {
    signal: background.signal,
    track(work) {
      open++;
      background.track(work.finally(() => open--));
    },
    stop: () => background.stop(),
    open: () => open,
  };
}

/** A job store whose first `failures` completion writes fail as given; the rest succeed. */
function flakyRepo(failures: number, fault: () => Error) {
  const finishes: { status: unknown; at: number }[] = [];
  const recorded: Partial<JobDoc>[] = [];
  const repo = {
    admit: async () => true,
    remove: async () => undefined,
    async finish(_id: string, _from: string[], set: Partial<JobDoc>) {
      finishes.push({ status: set.status, at: Date.now() });
      if (finishes.length <= failures) throw fault();
      recorded.push(set);
      return true;
    },
  };
  return { repo, finishes, recorded };
}

function deps(repo: unknown, charges: string[], background: Background, logger = createLogger('jobs-test', 'silent')): ProcessDeps {
  const storage = {
    resolveFile: async () => ({ fileInfo: { fileSize: 100n }, localPath: png, blobKey: 'k' }),
    recordMediaProbe: async () => ({}),
    storeLocalFile: async () => ({ file: {}, download: { url: 'http://dl/out.jpg', fileSize: 100n } }),
  };
  const bus = { publish: async (_subject: string, _data: Uint8Array, opts?: { msgId?: string }) => void charges.push(opts?.msgId ?? '') };
  return {
    repo,
    storage,
    outputs: createOutputStore(storage as never, createLogger('jobs-test', 'silent')),
    bus,
    background,
    slots: new Slots(1),
    logger,
    workRoot: join(dir, 'work'),
    timeoutMs: 60_000,
    parallelJobs: 50,
    busyRetryAfterSec: 5,
    allowlist: EMPTY_CIDR_LIST,
  } as unknown as ProcessDeps;
}

const task = () => planOf({ inputs: [{ filePath: `${dirId}/in.png` }], outputs: [{ file: 'out.jpg', options: ['-frames:v', '1'] }] });
const who = { accountId: 'acc', keyId: 'key' };

test('the store down when the completion is written: the answer stands, charged once, recorded once the store is back', async () => {
  const { repo, finishes, recorded } = flakyRepo(2, () => Errors.dependencyDown());
  const charges: string[] = [];
  const background = createBackground();
  const logger = createLogger('jobs-test', 'silent');
  // The waits before each write again, as the service plans them (its debug log).
  const debug = jest.spyOn(logger, 'debug');
  const waits = () =>
    debug.mock.calls.flatMap(([fields]) =>
      (fields as { waitMs?: number }).waitMs !== undefined ? [(fields as { waitMs: number }).waitMs] : [],
    );
  try {
    const done = await processSync(deps(repo, charges, background, logger), who, task());
    expect(done.result).toEqual([{ fileName: 'out.jpg', sizeBytes: 100, downloadUrl: 'http://dl/out.jpg' }]);
    expect(charges).toEqual([`charge:${done.requestId}`]);
    expect(recorded).toEqual([]); // not yet: the first write failed
    await waitFor('the completion recorded', () => recorded.length > 0);
    expect(recorded).toEqual([{ status: 'completed', result: done.result, usage: done.usage, amountUsd: done.amountUsd }]);
    // One try at the answer, then 1 s and 2 s later.
    expect(finishes.map((f) => f.status)).toEqual(['completed', 'completed', 'completed']);
    expect(waits()).toEqual(OUTAGE_RETRY_SCHEDULE_MS.slice(0, 2));
    expect(charges).toHaveLength(1);
  } finally {
    await background.stop();
  }
}, 20_000);

test('a failure that is not an outage is not retried', async () => {
  const { repo, finishes } = flakyRepo(1, () => new Error('a bug'));
  const charges: string[] = [];
  const background = watched(createBackground());
  const done = await processSync(deps(repo, charges, background), who, task());
  expect(done.result).toHaveLength(1);
  // A retry is background work: once none is left, no further try can come.
  await waitFor('the background idle', () => background.open() === 0);
  expect(finishes).toHaveLength(1);
  await background.stop();
}, 20_000);

test('closing the service stops waiting for the store at once', async () => {
  const { repo, finishes } = flakyRepo(Infinity, () => Errors.dependencyDown());
  const background = createBackground();
  await processSync(deps(repo, [], background), who, task());
  // Had stop() waited for the pending retry, the retry's first pause would have ended first.
  const pauseOver = new Promise((r) => setTimeout(r, OUTAGE_RETRY_SCHEDULE_MS[0], 'pause over').unref());
  expect(await Promise.race([background.stop().then(() => 'stopped'), pauseOver])).toBe('stopped');
  expect(finishes).toHaveLength(1); // the pending retry was dropped, not run
});
