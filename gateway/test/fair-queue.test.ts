// Fair scheduling of async jobs across accounts: with one ffmpeg slot, account A queues six jobs
// of about a second each, then account B queues one. B's job runs next after A's first (round-
// robin across accounts), not after A's whole backlog, nor after the A jobs the worker staged
// ahead before B's came; and A alone still uses every slot.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, sleep } from './helpers.js';
import { makeMp4 } from './media-fixtures.js';

let stack: TestStack;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'fair-queue-'));
  stack = await startTestStack({ WORKER_CONCURRENCY: '1', JOB_STAGE_AHEAD: '2' });
});
afterAll(async () => {
  await stack?.close();
  await rm(work, { recursive: true, force: true });
});

async function accountWithClip(name: string) {
  const api = caller(stack, (await stack.newAccount()).authorization);
  const reg = await api('POST', '/file', { file_name: 'clip.mp4' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: await makeMp4(work, `${name}.mp4`, 1) });
  // -re: about a second of ffmpeg per job, whatever the machine.
  const submit = async (file: string) =>
    (
      await api('POST', '/ffmpeg/process/async', {
        task: { inputs: [{ file_path: reg.body.file.file_path, options: ['-re'] }], outputs: [{ file, options: ['-c', 'copy'] }] },
      })
    ).body.job_id as string;
  return { api, submit };
}

test("B's one job waits for one of A's, not for A's six", async () => {
  const a = await accountWithClip('a');
  const b = await accountWithClip('b');
  const aJobs: string[] = [];
  for (let i = 0; i < 6; i++) aJobs.push(await a.submit(`a${i}.mkv`));
  const bJob = await b.submit('b.mkv');
  const finishedAt = async (api: typeof a.api, id: string) => {
    for (;;) {
      const { body } = await api('GET', `/job/${id}`);
      if (body.status === 'completed') break;
      if (body.status === 'failed') throw new Error(`job ${id} failed: ${body.error}`);
      await sleep(100);
    }
    const { body } = await api('GET', '/jobs?limit=100');
    return Date.parse(body.jobs.find((j: { id: string }) => j.id === id).completed_at);
  };
  const bDone = await finishedAt(b.api, bJob);
  const aDone = await Promise.all(aJobs.map((id) => finishedAt(a.api, id)));
  expect([bDone, ...aDone].every(Number.isFinite)).toBe(true);
  // Jobs run one at a time: B's finished before A's third (A's first, or its second if it was
  // already claimed when B's arrived, came first).
  expect(aDone.filter((t) => t < bDone).length).toBeLessThanOrEqual(2);
  expect(aDone.filter((t) => t > bDone).length).toBeGreaterThanOrEqual(4);
}, 60_000);
