// MongoDB down and back (the MongoDB-wire test server stopped, then listening again on the same
// port with the same data): the gateway answers 503 (spec shape, Retry-After) while the services'
// MongoDB breakers open and while they are open, and serves again by itself (how fast is logged,
// not asserted; that an open breaker answers without calling is dependency-guard.test.ts's). Async
// jobs caught by the outage (running, or waiting to be claimed) wait it out: every accepted job
// completes, charged once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeMp4 } from './media-fixtures.js';
import {
  breakerReads,
  eventually,
  expectAllCompletedAndChargedOnce,
  startFaultStack,
  submitUntilOneRuns,
  thumbnail,
  timed,
  UNAVAILABLE,
  upload,
  type FaultStack,
} from './faults-helpers.js';

let f: FaultStack;
let fixtures: string;
let mp4: Buffer;

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'faults-mongo-'));
  [mp4, f] = await Promise.all([makeMp4(fixtures, 'small.mp4', 1), startFaultStack()]);
}, 60_000);
afterAll(async () => {
  await f?.close();
  await rm(fixtures, { recursive: true, force: true });
});

const expect503 = (res: { status: number; body: unknown; headers: Record<string, unknown> }) => {
  expect({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }).toEqual({
    status: 503,
    body: UNAVAILABLE,
    retryAfter: '5',
  });
};

const restartable = !process.env.MONGODB_URL; // an external server cannot be stopped from here

(restartable ? test : test.skip)(
  'MongoDB down: 503 with Retry-After, also once the breakers are open; back by itself after restart',
  async () => {
    const { api, mongo } = f;
    const dirId = (await api('POST', '/directory', {})).body.directory.id as string;
    expect((await api('GET', '/account')).status).toBe(200);
    expect((await api('GET', `/directory/${dirId}`)).status).toBe(200);
    const timings: Record<string, number> = {};

    await mongo.restart(async () => {
      const first = await timed(() => api('GET', '/account'));
      expect503(first.res);
      timings.firstAccount = first.ms;
      // Three failures in a row open a service's MongoDB breaker; these wait for server selection
      // (no server known any more).
      const selection = await timed(() => Promise.all([1, 2, 3].map(() => api('GET', '/account'))));
      selection.res.forEach(expect503);
      timings.serverSelection = selection.ms;
      const open = await timed(() => api('GET', '/account'));
      expect503(open.res);
      timings.openAccount = open.ms;
      // The gateway admits a key it knows without Auth's database, so each service meets the
      // outage itself: Storage's breaker opens the same way, on its own failures.
      const dirFirst = await timed(() => Promise.all([1, 2, 3, 4].map(() => api('GET', `/directory/${dirId}`))));
      dirFirst.res.forEach(expect503);
      const dir = await timed(() => api('GET', `/directory/${dirId}`));
      expect503(dir.res);
      timings.directory = dir.ms;
    });

    const back = await eventually(
      () => api('GET', '/account'),
      (r) => r.status === 200,
    );
    timings.recoveredAfter = back.ms;
    // Same data: the directory made before the outage is still there.
    expect(
      (
        await eventually(
          () => api('GET', `/directory/${dirId}`),
          (r) => r.status === 200,
        )
      ).res.body.ok,
    ).toBe(true);
    expect((await api('POST', '/directory', {})).status).toBe(200);
    console.log(
      `MongoDB down: first 503 after ${timings.firstAccount} ms, 3 more (server selection) ${timings.serverSelection} ms; breaker open: GET /account ${timings.openAccount} ms, GET /directory ${timings.directory} ms; served again ${timings.recoveredAfter} ms after restart`,
    );
  },
  60_000,
);

(restartable ? test : test.skip)(
  'MongoDB stopped and restarted mid-run: every accepted async job completes, charged once',
  async () => {
    const { api, mongo } = f;
    // Let the breakers of the test above close again first.
    await eventually(
      () => api('GET', '/account'),
      (r) => r.status === 200,
      30_000,
    );
    const input = await upload(api, 'in.mp4', mp4);
    const jobIds = await submitUntilOneRuns(api, input.filePath);
    await breakerReads('mongodb', 'closed'); // an open one would end the hold below at once
    // A job is running (its worker holds a lease and is about to record a result) when MongoDB goes.
    await mongo.restart(async () => {
      // Nothing can be stored now: no new job is accepted, and running ones cannot record their end.
      expect((await api('POST', '/ffmpeg/process/async', thumbnail(input.filePath, 'late.png'))).status).toBe(503);
      // Held until the services have met the outage (their mongodb breaker opened), not for a set time.
      await breakerReads('mongodb', 'open');
    });
    const endedMs = await expectAllCompletedAndChargedOnce(f, jobIds, input.filePath, 60_000);
    console.log(`MongoDB back: all ${jobIds.length} jobs ended within ${endedMs} ms`);
  },
  120_000,
);
