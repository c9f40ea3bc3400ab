// Staging outside the slots: the worker stages pending jobs' inputs without claiming them, while
// slots are free and, JOB_STAGE_AHEAD of them, while every slot is busy. The job stays pending (a
// cancel still wins), runs from that staging once a slot is to be had, and no staging outlives its
// job, a cancel or the worker. A staging that failed is not done again unless an outage failed it.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { openEmbeddedDocStore, type DocStore } from '@media/docstore';
import { EMPTY_CIDR_LIST } from '@media/media';
import { Code, ConnectError } from '@connectrpc/connect';
import { createLogger, DomainError } from '@media/platform';
import { openJobsRepository } from '../src/adapters/repository.js';
import type { JobsRepository } from '../src/domain/ports.js';
import { openDispatch } from '../src/domain/dispatch.js';
import { newJobDoc } from '../src/domain/job-doc.js';
import type { ProcessDeps } from '../src/domain/process.js';
import { Slots } from '../src/domain/slots.js';
import { createOutputStore } from '../src/domain/stages/store-outputs.js';
import { startWorker, type Worker } from '../src/domain/worker.js';

const dirId = 'dir_aaaaaaaaaaaaaaaaaaaa';
const who = { accountId: 'acc_stage', keyId: 'key_stage' };

let dir: string;
let png: string;
let bus: EventBus;
let store: DocStore;
let repo: JobsRepository;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-ahead-'));
  png = join(dir, 'in.png');
  await promisify(execFile)('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=32x32', '-frames:v', '1', png]);
  bus = await connectEventBus({});
  store = await openEmbeddedDocStore({ dataDir: join(dir, 'db'), database: 'jobs' });
  repo = await openJobsRepository(store);
});
afterAll(async () => {
  await store.close();
  await bus.close();
  await rm(dir, { recursive: true, force: true });
});

/** Storage that resolves in.png to the local file (or fails while `failResolves` > 0) and stores outputs. */
function fakeStorage() {
  const calls = { resolve: 0, failResolves: 0, reads: 0, hangReads: false, refuse: undefined as string | undefined };
  const storage = {
    async resolveFile() {
      calls.resolve++;
      if (calls.failResolves > 0) {
        calls.failResolves--;
        throw new ConnectError('storage briefly unavailable', Code.Unavailable);
      }
      if (calls.refuse) throw new DomainError('not_found', calls.refuse);
      // hangReads: no local path, so the input is streamed, and the stream never ends (a slow source).
      return { fileInfo: { fileSize: 100n }, localPath: calls.hangReads ? undefined : png, blobKey: 'k', mediaProbe: undefined };
    },
    async *readFile(_req: unknown, opts: { signal?: AbortSignal }) {
      calls.reads++;
      await new Promise((_resolve, reject) => {
        if (opts.signal?.aborted) reject(new Error('aborted'));
        opts.signal?.addEventListener('abort', () => reject(new Error('aborted')));
      });
      yield { chunk: new Uint8Array(0) };
    },
    recordMediaProbe: async () => ({}),
    storeLocalFile: async () => ({ file: {}, download: { url: 'http://dl/out.jpg', fileSize: 10n } }),
  };
  return { storage, calls };
}

interface Harness {
  worker: Worker;
  slots: Slots;
  workRoot: string;
  calls: ReturnType<typeof fakeStorage>['calls'];
}

async function withWorker(
  stageAhead: number,
  body: (h: Harness) => Promise<void>,
  shared?: Pick<Harness, 'calls'> & { storage: unknown },
  extra: Partial<ProcessDeps> = {},
): Promise<void> {
  const { storage, calls } = shared ?? fakeStorage();
  const slots = new Slots(1);
  const workRoot = await mkdtemp(join(dir, 'work-'));
  const deps = {
    repo,
    storage,
    outputs: createOutputStore(storage as never, createLogger('jobs-test', 'silent')),
    slots,
    bus,
    logger: createLogger('jobs-test', 'silent'),
    workRoot,
    timeoutMs: 60_000,
    allowlist: EMPTY_CIDR_LIST,
    ...extra,
  } as unknown as ProcessDeps;
  const worker = startWorker(
    deps,
    await openDispatch(bus),
    { leaseMs: 30_000, scanIntervalMs: 60_000, maxAttempts: 3, stageAhead },
    async () => undefined,
  );
  try {
    await body({ worker, slots, workRoot, calls });
  } finally {
    await worker.stop();
  }
}

async function pendingJob(owner = who): Promise<string> {
  const task = { inputs: [{ filePath: `${dirId}/in.png` }], outputs: [{ file: 'out.jpg', options: ['-frames:v', '1'] }] };
  const job = newJobDoc(
    owner,
    'async',
    'pending',
    { inputCount: 1, outputCount: 1 },
    { task, attempts: 0, leaseUntil: null, workerId: null },
  );
  await repo.admit(job, 50);
  return job._id;
}

/** Once the clock is past job `id`'s created_at: a job made next sorts after it. */
async function pastCreated(id: string): Promise<void> {
  const at = (await repo.byId(id))!.createdAt.getTime();
  await until('a later created_at', async () => Date.now() > at);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The job's work directories under the work root, and whether its input is staged in one. */
async function stagingOf(workRoot: string, jobId: string): Promise<{ dirs: string[]; staged: boolean }> {
  const dirs = (await readdir(workRoot)).filter((d) => d.startsWith(`${jobId}-`));
  const staged = dirs.length === 1 && (await readdir(join(workRoot, dirs[0]!, 'in')).catch((): string[] => [])).includes('0');
  return { dirs, staged };
}

const statusOf = async (jobId: string) => (await repo.byId(jobId))!.status;

test('a busy worker stages the next job without claiming it, then runs it from that staging', async () => {
  await withWorker(1, async ({ worker, slots, workRoot, calls }) => {
    const busy = slots.tryAcquire()!; // every slot taken, as by a running ffmpeg
    const jobId = await pendingJob();
    worker.wake();
    await until('the job staged ahead', async () => (await stagingOf(workRoot, jobId)).staged);
    expect(await statusOf(jobId)).toBe('pending');
    expect(calls.resolve).toBe(1);

    busy();
    worker.wake();
    await until('the job completed', async () => (await statusOf(jobId)) === 'completed');
    // Its inputs were resolved and staged once, ahead; the run used that staging.
    expect(calls.resolve).toBe(1);
    expect((await repo.byId(jobId))!.result).toEqual([{ fileName: 'out.jpg', sizeBytes: 10, downloadUrl: 'http://dl/out.jpg' }]);
    await until('its work directory removed', async () => (await stagingOf(workRoot, jobId)).dirs.length === 0);
  });
}, 30_000);

test('a job staged ahead can still be cancelled; its staging is removed when a slot frees', async () => {
  await withWorker(1, async ({ worker, slots, workRoot }) => {
    const busy = slots.tryAcquire()!;
    const jobId = await pendingJob();
    worker.wake();
    await until('the job staged ahead', async () => (await stagingOf(workRoot, jobId)).staged);
    expect(await repo.cancel(who.accountId, jobId)).not.toBeNull();

    busy();
    worker.wake();
    await until('the staging removed', async () => (await stagingOf(workRoot, jobId)).dirs.length === 0);
    expect(await statusOf(jobId)).toBe('cancelled');
    expect(slots.inUse).toBe(0);
  });
}, 30_000);

test('a staging an outage failed is done again: the job stays pending meanwhile', async () => {
  await withWorker(1, async ({ worker, slots, workRoot, calls }) => {
    const busy = slots.tryAcquire()!;
    calls.failResolves = 1;
    const jobId = await pendingJob();
    worker.wake();
    await until('the staging tried', async () => calls.resolve === 1);
    expect(await statusOf(jobId)).toBe('pending');
    busy();
    // Tried again a second later, at the next wake (the worker's scan, in production).
    await until('the job completed', async () => {
      worker.wake();
      return (await statusOf(jobId)) === 'completed';
    });
    expect(calls.resolve).toBe(2);
    await until('its work directory removed', async () => (await stagingOf(workRoot, jobId)).dirs.length === 0);
  });
}, 30_000);

test('it stages the oldest pending jobs, JOB_STAGE_AHEAD of them, each once', async () => {
  await withWorker(2, async ({ worker, slots, workRoot, calls }) => {
    slots.tryAcquire();
    let last: string | undefined;
    const newJob = async () => {
      if (last) await pastCreated(last); // distinct created_at
      last = await pendingJob();
      return last;
    };
    const first = await newJob();
    worker.wake();
    await until('the first job staged ahead', async () => (await stagingOf(workRoot, first)).staged);
    const second = await newJob();
    const third = await newJob();
    worker.wake();
    await until('the second job staged ahead', async () => (await stagingOf(workRoot, second)).staged);
    for (let i = 0; i < 3; i++) worker.wake(); // more dispatches while full: nothing more is staged
    await worker.idle();
    // A staging is taken in the job's record before it starts: none was for the third.
    expect((await repo.byId(third))!.stagingBy ?? null).toBeNull();
    expect((await stagingOf(workRoot, third)).dirs).toEqual([]);
    expect((await stagingOf(workRoot, first)).dirs).toHaveLength(1);
    expect(calls.resolve).toBe(2);
    for (const id of [first, second, third]) await repo.cancel(who.accountId, id);
  });
}, 30_000);

test('stopping the worker removes its stagings and leaves their jobs pending', async () => {
  let workRoot = '';
  let jobId = '';
  await withWorker(2, async (h) => {
    workRoot = h.workRoot;
    h.slots.tryAcquire();
    jobId = await pendingJob();
    h.worker.wake();
    await until('the job staged ahead', async () => (await stagingOf(workRoot, jobId)).staged);
  });
  expect((await stagingOf(workRoot, jobId)).dirs).toEqual([]);
  expect(await statusOf(jobId)).toBe('pending');
  await repo.cancel(who.accountId, jobId);
}, 30_000);

test("a staging that failed with the user's error fails the job with it: its inputs are fetched once", async () => {
  await withWorker(1, async ({ worker, calls }) => {
    calls.refuse = 'File not found';
    const jobId = await pendingJob();
    worker.wake();
    await until('the job failed', async () => (await statusOf(jobId)) === 'failed');
    expect((await repo.byId(jobId))!.error).toBe('File not found');
    for (let i = 0; i < 3; i++) worker.wake();
    await worker.idle();
    expect(calls.resolve).toBe(1);
  });
}, 30_000);

test('a job whose input is still arriving holds no slot and stays pending; stopping the worker stops it', async () => {
  let workRoot = '';
  let jobId = '';
  await withWorker(1, async (h) => {
    workRoot = h.workRoot;
    h.calls.hangReads = true;
    jobId = await pendingJob();
    h.worker.wake();
    await until('the staging reading', async () => h.calls.reads === 1);
    expect(await statusOf(jobId)).toBe('pending');
    expect(h.slots.inUse).toBe(0);
  }); // stop(): returns only once the staging has stopped
  expect(await statusOf(jobId)).toBe('pending'); // handed back
  expect((await stagingOf(workRoot, jobId)).dirs).toEqual([]);
  await repo.cancel(who.accountId, jobId);
}, 30_000);

test('JOB_STAGE_AHEAD=0: nothing is staged while the slots are busy', async () => {
  await withWorker(0, async ({ worker, slots, workRoot, calls }) => {
    const busy = slots.tryAcquire()!;
    const jobId = await pendingJob();
    worker.wake();
    await worker.idle();
    expect((await repo.byId(jobId))!.stagingBy ?? null).toBeNull();
    expect(calls.resolve).toBe(0);
    expect((await stagingOf(workRoot, jobId)).dirs).toEqual([]);
    busy();
    worker.wake();
    await until('the job completed', async () => (await statusOf(jobId)) === 'completed');
    expect(calls.resolve).toBe(1);
  });
}, 30_000);

test("one account's slow stagings do not hold every place: another account's job takes the youngest one's", async () => {
  const other = { accountId: 'acc_other', keyId: 'key_other' };
  await withWorker(2, async ({ worker, slots, workRoot, calls }) => {
    const busy = slots.tryAcquire()!; // the slot busy: two places, both JOB_STAGE_AHEAD's
    calls.hangReads = true; // every input arrives forever
    const first = await pendingJob();
    await pastCreated(first);
    const second = await pendingJob();
    worker.wake();
    await until("both of the account's stagings reading", async () => calls.reads === 2);
    const theirs = await pendingJob(other);
    worker.wake();
    await until("the other account's staging reading", async () => calls.reads === 3);
    await until(
      'the youngest staging of the first account stopped and removed',
      async () => (await stagingOf(workRoot, second)).dirs.length === 0,
    );
    expect((await stagingOf(workRoot, first)).dirs).toHaveLength(1);
    expect((await stagingOf(workRoot, theirs)).dirs).toHaveLength(1);
    for (const id of [first, second, theirs]) expect(await statusOf(id)).toBe('pending');
    await repo.cancel(other.accountId, theirs);
    for (const id of [first, second]) await repo.cancel(who.accountId, id);
    busy();
  });
}, 30_000);

test("one account's stagings count for it: more of its jobs waiting than places do not hide another account's", async () => {
  const other = { accountId: 'acc_other', keyId: 'key_other' };
  await withWorker(2, async ({ worker, slots, workRoot, calls }) => {
    const busy = slots.tryAcquire()!; // the slot busy: two places, both JOB_STAGE_AHEAD's
    calls.hangReads = true; // every input arrives forever
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      mine.push(await pendingJob());
      await new Promise((r) => setTimeout(r, 5)); // distinct createdAt: the order is the queue's
    }
    worker.wake();
    await until("two of the account's stagings reading", async () => calls.reads === 2);
    // Three more of its jobs are older than the other account's: its two stagings count as its
    // load, so the other account's job is the one asked for, and takes the youngest's place.
    const theirs = await pendingJob(other);
    worker.wake();
    await until("the other account's staging reading", async () => (await stagingOf(workRoot, theirs)).dirs.length === 1);
    expect(await statusOf(theirs)).toBe('pending');
    await repo.cancel(other.accountId, theirs);
    for (const id of mine) await repo.cancel(who.accountId, id);
    busy();
  });
}, 30_000);

test('two workers (replicas) do not fetch the same inputs; once the one staging it stops, the other may', async () => {
  const shared = fakeStorage();
  shared.calls.hangReads = true;
  let jobId = '';
  await withWorker(
    2,
    async (first) => {
      await withWorker(
        2,
        async (second) => {
          jobId = await pendingJob();
          first.worker.wake();
          second.worker.wake();
          await until('one staging reading', async () => shared.calls.reads === 1);
          for (let i = 0; i < 3; i++) for (const h of [first, second]) h.worker.wake();
          await Promise.all([first.worker.idle(), second.worker.idle()]);
          expect(shared.calls.reads).toBe(1);
          // The one staging it stops (as in a rolling update) and gives its staging lease up.
          const by = (await repo.byId(jobId))!.stagingBy;
          const [staging, other] = by === first.worker.workerId ? [first, second] : [second, first];
          expect(by).toBe(staging.worker.workerId);
          await staging.worker.stop();
          await until('the other worker staging it', async () => {
            other.worker.wake();
            return shared.calls.reads === 2;
          });
          expect(await statusOf(jobId)).toBe('pending');
        },
        shared,
      );
    },
    shared,
  );
  await repo.cancel(who.accountId, jobId);
}, 30_000);

test('a run that meets a full disk goes back to the queue: its retry waits for a slot, never runs without one', async () => {
  // The disk is short of its reserve when the first run starts (503, an outage: the job is kept),
  // then has room. The slot went with that first run, so the second must take one again.
  const inUseAtRuns: number[] = [];
  let slotsRef: Slots | undefined;
  const disk = {
    assertRoom: async () => undefined,
    isLow: async () => false,
    headroom: async () => {
      inUseAtRuns.push(slotsRef!.inUse);
      return inUseAtRuns.length === 1 ? -1 : 10 ** 9;
    },
  };
  await withWorker(
    0,
    async ({ worker, slots }) => {
      slotsRef = slots;
      const jobId = await pendingJob();
      worker.wake();
      await until('the job completed', async () => (await statusOf(jobId)) === 'completed');
      // Asked at each run's start and by its disk watch: a slot held every time, two runs at least.
      expect(inUseAtRuns.length).toBeGreaterThanOrEqual(2);
      expect(new Set(inUseAtRuns)).toEqual(new Set([1]));
      expect(slots.inUse).toBe(0);
    },
    undefined,
    { disk } as unknown as Partial<ProcessDeps>,
  );
}, 30_000);
