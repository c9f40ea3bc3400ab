// A worker slot bounds ffmpeg processes: it is free again as soon as ffmpeg has exited, while the
// outputs are still being stored and the run charged, and also when ffmpeg fails.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { JobKind } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { connectEventBus, type EventBus } from '@media/eventbus';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { TaskSchema } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { EMPTY_CIDR_LIST, planTask } from '@media/media';
import { createLogger } from '@media/platform';
import { execute, type ProcessDeps } from '../src/domain/process.js';
import { Slots } from '../src/domain/slots.js';
import { createOutputStore } from '../src/domain/stages/store-outputs.js';

/** A task as the gateway passes it, planned as Jobs plans it. */
const planOf = (task: MessageInitShape<typeof TaskSchema>) => planTask(create(TaskSchema, task));

let dir: string;
let png: string;
let bus: EventBus;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobs-slot-'));
  png = join(dir, 'in.png');
  await promisify(execFile)('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=32x32', '-frames:v', '1', png]);
  bus = await connectEventBus({});
});
afterAll(async () => {
  await bus.close();
  await rm(dir, { recursive: true, force: true });
});

/** Storage whose store of an output waits until the test lets it go. */
function blockingStorage() {
  let letGo!: () => void;
  const gate = new Promise<void>((r) => (letGo = r));
  let storing!: () => void;
  const storingStarted = new Promise<void>((r) => (storing = r));
  const storage = {
    recordMediaProbe: async () => ({}),
    async storeLocalFile() {
      storing();
      await gate;
      return { file: {}, download: { url: 'http://dl/out.jpg', fileSize: 100n } };
    },
  };
  return { storage, letGo, storingStarted };
}

const dirId = 'dir_aaaaaaaaaaaaaaaaaaaa';
const resolved = (task: ReturnType<typeof planOf>) => [
  {
    planned: task.inputs[0]!,
    files: [{ input: { kind: 'uploaded' as const, dirId, fileName: 'in.png' }, name: 'in.png', size: 1, localPath: png, blobKey: 'k' }],
  },
];

function deps(storage: unknown, slots: Slots): ProcessDeps {
  return {
    storage,
    outputs: createOutputStore(storage as never, createLogger('jobs-test', 'silent')),
    slots,
    bus,
    logger: createLogger('jobs-test', 'silent'),
    workRoot: join(dir, 'work'),
    timeoutMs: 60_000,
    allowlist: EMPTY_CIDR_LIST,
  } as unknown as ProcessDeps;
}

test('the slot is free while the outputs are stored', async () => {
  const slots = new Slots(1);
  const release = slots.tryAcquire()!;
  const { storage, letGo, storingStarted } = blockingStorage();
  const task = planOf({ inputs: [{ filePath: `${dirId}/in.png` }], outputs: [{ file: 'out.jpg', options: ['-frames:v', '1'] }] });
  const running = execute(deps(storage, slots), { accountId: 'acc', keyId: 'key' }, 'job_slot1', task, resolved(task), {
    kind: JobKind.SYNC,
    ffmpegDone: release,
  });
  await storingStarted;
  expect(slots.inUse).toBe(0);
  expect(slots.tryAcquire()).not.toBeNull(); // the next job could start its ffmpeg now
  letGo();
  expect((await running).result).toEqual([{ fileName: 'out.jpg', sizeBytes: 100, downloadUrl: 'http://dl/out.jpg' }]);
}, 30_000);

test('the slot is freed when ffmpeg fails', async () => {
  const slots = new Slots(1);
  const release = slots.tryAcquire()!;
  const { storage } = blockingStorage();
  // Allowed options ffmpeg cannot satisfy: libx264 4:2:0 refuses an odd width, so it exits non-zero.
  const task = planOf({
    inputs: [{ filePath: `${dirId}/in.png` }],
    outputs: [{ file: 'out.mp4', options: ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-vf', 'scale=31:31'] }],
  });
  await expect(
    execute(deps(storage, slots), { accountId: 'acc', keyId: 'key' }, 'job_slot2', task, resolved(task), {
      kind: JobKind.SYNC,
      ffmpegDone: release,
    }),
  ).rejects.toThrow();
  expect(slots.inUse).toBe(0);
}, 30_000);
