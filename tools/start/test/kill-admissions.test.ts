// kill -9 of `npm start` in the middle of sync requests and probes: started again on the same
// data, it releases their admissions at once (they no longer count toward the account's jobs in
// progress) and lists the requests failed, uncharged; it does not wait for their lease to lapse.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnStack, startHttpsServer, tempDir, type Spawned } from '@media/testkit';
import { accountWithClip, type Call } from './spawned-account.js';

// A lease far longer than the test: only the release at start can free the slots in time.
const env = { ADMISSION_LEASE_SEC: '600', JOB_SCAN_INTERVAL_MS: '200', PARALLEL_JOBS: '2' };
let first: Spawned;
let second: Spawned | undefined;

afterAll(async () => {
  await first?.kill();
  await second?.stop();
});

/**
 * Sends the requests (the account's limit of jobs in progress, 2), waits until all count as
 * active, kills npm start with them in flight and starts it again on its data: there, none is.
 */
async function killAtLimitAndRestart(
  stack: Spawned,
  call: Call,
  startEnv: Record<string, string>,
  requests: Array<() => Promise<unknown>>,
): Promise<Spawned> {
  const pending = requests.map((send) => send().catch(() => undefined));
  const active = async (base: string) => (await call(base, 'GET', '/account')).body.jobs?.active;
  for (let i = 0; i < 200 && (await active(stack.baseUrl)) !== requests.length; i++) await new Promise((r) => setTimeout(r, 50));
  expect(await active(stack.baseUrl)).toBe(requests.length);
  await stack.kill();
  await Promise.all(pending);
  const again = await spawnStack(startEnv, stack.dataDir);
  expect(await active(again.baseUrl)).toBe(0);
  return again;
}

test('kill -9 mid sync request: after restart the account is not locked, the request is failed and uncharged', async () => {
  first = await spawnStack(env);
  const { call, dirId } = await accountWithClip(first, 'testsrc=duration=20:size=160x120:rate=10');
  // Two sync runs of about 20 s each (-re): the account's limit of 2 is reached.
  const task = (file: string) => ({
    task: { inputs: [{ file_path: `${dirId}/clip.mp4`, options: ['-re'] }], outputs: [{ file, options: ['-c', 'copy'] }] },
  });
  second = await killAtLimitAndRestart(first, call, env, [
    () => call(first.baseUrl, 'POST', '/ffmpeg/process', task('a.mkv')),
    () => call(first.baseUrl, 'POST', '/ffmpeg/process', task('b.mkv')),
  ]);
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
    const slowProbe = () => call(before!.baseUrl, 'POST', '/ffprobe/analyze', { file_path: `${https.url}/slow.mp4` });
    after = await killAtLimitAndRestart(before, call, probeEnv, [slowProbe, slowProbe]);
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
