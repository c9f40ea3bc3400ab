// kill -9 of `npm start` in the middle of sync requests and probes: started again on the same
// data, it releases their admissions at once (they no longer count toward the account's jobs in
// progress) and lists the requests failed, uncharged; it does not wait for their lease to lapse.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnStack, startHttpsServer, tempDir, type Spawned } from '@media/testkit';
import { accountWithClip } from './spawned-account.js';

// A lease far longer than the test: only the release at start can free the slots in time.
const env = { ADMISSION_LEASE_SEC: '600', JOB_SCAN_INTERVAL_MS: '200', PARALLEL_JOBS: '2' };
let first: Spawned;
let second: Spawned | undefined;

afterAll(async () => {
  await first?.kill();
  await second?.stop();
});

test('kill -9 mid sync request: after restart the account is not locked, the request is failed and uncharged', async () => {
  first = await spawnStack(env);
  const { call, dirId } = await accountWithClip(first, 'testsrc=duration=20:size=160x120:rate=10');
  // Two sync runs of about 20 s each (-re): the account's limit of 2 is reached.
  const task = (file: string) => ({ task: { inputs: [{ file_path: `${dirId}/clip.mp4`, options: ['-re'] }], outputs: [{ file, options: ['-c', 'copy'] }] } });
  const pending = [call(first.baseUrl, 'POST', '/ffmpeg/process', task('a.mkv')).catch(() => undefined), call(first.baseUrl, 'POST', '/ffmpeg/process', task('b.mkv')).catch(() => undefined)];
  for (let i = 0; i < 200 && (await call(first.baseUrl, 'GET', '/account')).body.jobs?.active !== 2; i++) await new Promise((r) => setTimeout(r, 50));
  expect((await call(first.baseUrl, 'GET', '/account')).body.jobs.active).toBe(2);
  await first.kill();
  await Promise.all(pending);

  second = await spawnStack(env, first.dataDir);
  expect((await call(second.baseUrl, 'GET', '/account')).body.jobs.active).toBe(0);
  const listed = await call(second.baseUrl, 'GET', '/jobs');
  expect(listed.body.jobs.map((j: { status: string }) => j.status)).toEqual(['failed', 'failed']);
  const job = await call(second.baseUrl, 'GET', `/job/${listed.body.jobs[0].id}`);
  expect(job.body.error).toBe('The request was interrupted: the service handling it stopped before it finished.');
  const usage = await call(second.baseUrl, 'GET', '/account/usage?format=json');
  expect(usage.body.rows).toEqual([]);
}, 120_000);

test('kill -9 mid probe: after restart the probe slots are free at once', async () => {
  // Probes whose URL input never finishes (allowed and trusted loopback for this test).
  const https = await startHttpsServer({
    host: '127.0.0.2',
    handler: (_req, res) => {
      res.writeHead(200, { 'content-length': '10000000' });
      res.write(Buffer.alloc(1000));
    },
  });
  const certs = await tempDir('kill-probe-ca-');
  await writeFile(join(certs.path, 'ca.pem'), https.ca);
  const probeEnv = { ...env, URL_ALLOWLIST_CIDRS: '127.0.0.2/32', URL_CA_FILE: join(certs.path, 'ca.pem') };
  let before: Spawned | undefined;
  let after: Spawned | undefined;
  try {
    before = await spawnStack(probeEnv);
    const { call, dirId } = await accountWithClip(before, 'testsrc=duration=2:size=160x120:rate=10');
    const probing = [1, 2].map(() => call(before!.baseUrl, 'POST', '/ffprobe/analyze', { file_path: `${https.url}/slow.mp4` }).catch(() => undefined));
    for (let i = 0; i < 200 && (await call(before.baseUrl, 'GET', '/account')).body.jobs?.active !== 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await call(before.baseUrl, 'GET', '/account')).body.jobs.active).toBe(2);
    await before.kill();
    await Promise.all(probing);

    after = await spawnStack(probeEnv, before.dataDir);
    expect((await call(after.baseUrl, 'GET', '/account')).body.jobs.active).toBe(0);
    const probe = await call(after.baseUrl, 'POST', '/ffprobe/analyze', { file_path: `${dirId}/clip.mp4` });
    expect(probe.status).toBe(200);
    expect((await call(after.baseUrl, 'GET', '/account/usage?format=json')).body.rows).toHaveLength(1); // that probe's only
  } finally {
    await before?.kill();
    await after?.stop();
    await https.stop();
    await certs.remove();
  }
}, 120_000);
