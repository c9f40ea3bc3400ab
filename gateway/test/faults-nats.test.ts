// nats-server stopped and restarted (same port and store) while async jobs are queued and
// running: a charge that cannot be published while NATS is down does not fail the job; the
// worker keeps it and publishes once NATS is back. Every accepted job completes, charged once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeMp4 } from './media-fixtures.js';
import { breakerReads, expectAllCompletedAndChargedOnce, startFaultStack, thumbnail, upload, type FaultStack } from './faults-helpers.js';

let f: FaultStack;
let fixtures: string;
let mp4: Buffer;

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'faults-nats-'));
  [mp4, f] = await Promise.all([makeMp4(fixtures, 'small.mp4', 1), startFaultStack()]);
}, 60_000);
afterAll(async () => {
  await f?.close();
  await rm(fixtures, { recursive: true, force: true });
});

const restartable = !process.env.NATS_URL; // an external server cannot be restarted from here

(restartable ? test : test.skip)(
  'NATS stopped and restarted mid-run: every accepted async job completes, charged once',
  async () => {
    const { api, nats } = f;
    const input = await upload(api, 'in.mp4', mp4);
    const submit = async (n: number) => {
      const res = await api('POST', '/ffmpeg/process/async', thumbnail(input.filePath, `t${n}.png`));
      expect(res.status).toBe(202);
      return res.body.job_id as string;
    };
    const jobIds = await Promise.all([0, 1, 2, 3].map(submit));
    await breakerReads('nats', 'closed'); // an open one would end the hold below at once
    await nats.restart(async () => {
      // Accepted while NATS is down: persisted first, found by the workers' scan.
      jobIds.push(...(await Promise.all([4, 5].map(submit))));
      // Held until the services have met the outage (their nats breaker opened), not for a set time.
      await breakerReads('nats', 'open');
      const states = await Promise.all(jobIds.map(async (id) => (await api('GET', `/job/${id}`)).body.status));
      // None failed for want of NATS; those that finished ffmpeg wait to publish their charge.
      expect(states.filter((s) => s === 'failed')).toEqual([]);
      expect(states.filter((s) => s !== 'completed').length).toBeGreaterThan(0);
    });
    await expectAllCompletedAndChargedOnce(f, jobIds, input.filePath, 40_000);
  },
  60_000,
);
