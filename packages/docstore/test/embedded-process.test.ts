// The embedded engine and the processes using it: one process per database directory (a second
// is refused while the first lives; a lock left by a process that is gone, a crash or a kill -9,
// is taken over at once), and every write acknowledged before a kill -9 is there afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { appendFile, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { tempDir, waitFor } from '@media/testkit';
import { openEmbeddedDocStore } from '../src/index.js';
import { lockDirectory } from '../src/embedded/dir-lock.js';

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('docstore-lock-');
});
afterAll(async () => {
  await dir.remove();
});

const open = (database: string) => openEmbeddedDocStore({ dataDir: dir.path, database });
const lockOf = (database: string) => join(dir.path, database, 'LOCK');

/** Another process that opens `database` (the built package), runs `work` on it, then waits to be killed. */
async function holder(database: string, work = "await s.collection('things').insertOne({ _id: 'from-holder' });"): Promise<ChildProcess> {
  const dist = resolve(import.meta.dirname, '../dist/index.js');
  const script = `
    const { openEmbeddedDocStore } = await import(${JSON.stringify(dist)});
    const s = await openEmbeddedDocStore({ dataDir: ${JSON.stringify(dir.path)}, database: ${JSON.stringify(database)} });
    ${work}
    process.stdout.write('ready\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((ok, fail) => {
    child.stdout!.on('data', (d) => String(d).includes('ready') && ok());
    child.once('exit', (code) => fail(new Error(`holder exited ${code}`)));
  });
  return child;
}

const killed = (child: ChildProcess) =>
  new Promise<void>((r) => {
    child.once('exit', () => r());
    child.kill('SIGKILL');
  });

test('a second open in the same process is refused until the first is closed', async () => {
  const first = await open('same');
  await expect(open('same')).rejects.toMatchObject({ code: 'EBUSY', message: expect.stringMatching(/is already open in this process\.$/) });
  // Another spelling of the same directory is the same directory.
  await expect(
    openEmbeddedDocStore({ dataDir: join(dir.path, '.', '..', dir.path.split('/').pop()!), database: 'same' }),
  ).rejects.toMatchObject({ code: 'EBUSY' });
  await first.close();
  await expect(readFile(lockOf('same'))).rejects.toMatchObject({ code: 'ENOENT' }); // close removes it
  await (await open('same')).close();
});

test('another live process holding it: refused, naming its pid; once it is killed, taken over at once with its data', async () => {
  const child = await holder('shared');
  try {
    await expect(open('shared')).rejects.toMatchObject({
      code: 'EBUSY',
      message: `${join(dir.path, 'shared')} is in use by another process (pid ${child.pid}): stop it first, or give this one another DATA_DIR. One process per data directory.`,
    });
  } finally {
    await killed(child);
  }
  // The dead holder's lock is stale for a lock taken here: no wait for it to age.
  let waits = 0;
  const copy = await folderLockedBy(await readFile(lockOf('shared'), 'utf8'), 0);
  await (await lockDirectory(copy, { onWait: () => waits++ }))();
  expect(waits).toBe(0);
  const store = await open('shared');
  expect(await store.collection('things').findOne({ _id: 'from-holder' })).toEqual({ _id: 'from-holder' });
  expect(JSON.parse(await readFile(lockOf('shared'), 'utf8'))).toMatchObject({ pid: process.pid });
  await store.close();
}, 30_000);

test.each([
  [
    'a live pid that started at another time (the pid was reused)',
    () => ({ pid: process.ppid, boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), start: '1' }),
  ],
  ['a live pid after a reboot', () => ({ pid: process.ppid, host: hostname(), boot: 'another-boot', start: '1' })],
  ['this process own pid (a restarted container whose service is pid 1 again)', () => ({ pid: process.pid })],
  ['a pid that no longer exists', () => ({ pid: 2 ** 22 + 1 })],
])('a lock left by %s is stale', async (_what, owner) => {
  const database = `stale_${Math.random().toString(36).slice(2, 8)}`;
  await (await open(database)).close();
  await writeFile(lockOf(database), JSON.stringify(owner()));
  await (await open(database)).close();
});

const past = (seconds: number) => new Date(Date.now() - seconds * 1000);
const myPidNs = () => readlinkSync('/proc/self/ns/pid');
const fast = { heartbeatMs: 200, foreignStaleMs: 1000, writingGraceMs: 500 };

/** Takes the lock of `folder` with the fast timings; how many times it waited for the lock to age. */
async function waitsToLock(folder: string): Promise<number> {
  let waits = 0;
  await (await lockDirectory(folder, { timings: fast, onWait: () => waits++ }))();
  return waits;
}

/** A database folder whose LOCK holds `content`, last touched `ageSec` ago. */
async function folderLockedBy(content: string, ageSec: number): Promise<string> {
  const database = `l_${Math.random().toString(36).slice(2, 8)}`;
  await (await open(database)).close();
  await writeFile(lockOf(database), content);
  await utimes(lockOf(database), past(ageSec), past(ageSec));
  return join(dir.path, database);
}

test('an unreadable lock: one being written now is waited for, an old one is stale', async () => {
  const fresh = await folderLockedBy('', 0);
  // Nobody finishes writing it: once past the grace period it counts as a crash mid-write.
  expect(await waitsToLock(fresh)).toBeGreaterThan(0);
  const old = await folderLockedBy('{"pid":', 60);
  expect(await waitsToLock(old)).toBe(0);
});

describe('a lock of another pid namespace (another container on the volume), judged by its heartbeat', () => {
  const foreign = () =>
    JSON.stringify({ pid: 1, boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), start: '5', pidns: 'pid:[1]' });
  test('another host (a folder shared over the network), even with our pid, boot and namespace: waited for, not taken at once', async () => {
    const other = { pid: process.pid, host: `${hostname()}-other`, boot: 'its-boot', pidns: myPidNs() };
    const folder = await folderLockedBy(JSON.stringify(other), 0);
    expect(await waitsToLock(folder)).toBeGreaterThan(0); // taken once untouched for the stale time
  });
  test('kept fresh: waited for, then refused', async () => {
    const folder = await folderLockedBy(foreign(), 0);
    const keepFresh = setInterval(() => void utimes(join(folder, 'LOCK'), new Date(), new Date()), 100);
    let waits = 0;
    try {
      await expect(lockDirectory(folder, { timings: fast, onWait: () => waits++ })).rejects.toMatchObject({
        code: 'EBUSY',
        message: `${folder} is in use by a process in another container or PID namespace (pid 1 there; its lock is kept fresh): stop it first, or give this one another DATA_DIR. One process per data directory.`,
      });
    } finally {
      clearInterval(keepFresh);
    }
    expect(waits).toBeGreaterThan(0);
  });
  test('not touched for longer than the stale time: taken over at once', async () => {
    const folder = await folderLockedBy(foreign(), 5);
    expect(await waitsToLock(folder)).toBe(0);
  });
  test('its pid means nothing here: a lock naming our own pid from another namespace is not taken at once', async () => {
    // Containers on one volume are often each pid 1: ours being its pid is no sign that it is gone.
    expect(myPidNs()).toMatch(/^pid:\[\d+\]$/);
    const folder = await folderLockedBy(JSON.stringify({ pid: process.pid, pidns: 'pid:[1]' }), 0);
    expect(await waitsToLock(folder)).toBeGreaterThan(0); // taken once untouched for the stale time
  });
  test('the owner keeps its lock fresh while it holds it', async () => {
    const folder = await folderLockedBy('', 60);
    const release = await lockDirectory(folder, { timings: fast });
    const backdated = past(60).getTime();
    await utimes(join(folder, 'LOCK'), past(60), past(60));
    // The heartbeat touches it again (else the mtime stays a minute old).
    await waitFor('the heartbeat to touch LOCK', async () => (await stat(join(folder, 'LOCK'))).mtimeMs > backdated + 30_000);
    await release();
  });
});

test('where hard links are refused (some FUSE, SMB, VM shared folders), the lock is made by an exclusive create', async () => {
  const noLinks = (async () => {
    throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
  }) as unknown as typeof import('node:fs/promises').link;
  const folder = await folderLockedBy('', 60);
  const release = await lockDirectory(folder, { timings: fast, link: noLinks });
  expect(JSON.parse(await readFile(join(folder, 'LOCK'), 'utf8'))).toMatchObject({ pid: process.pid });
  await expect(lockDirectory(folder, { timings: fast, link: noLinks })).rejects.toMatchObject({
    message: expect.stringMatching(/already open in this process/),
  });
  await release();
  await (await lockDirectory(folder, { timings: fast, link: noLinks }))();
});

test('every write acknowledged before a kill -9 is there after it', async () => {
  // 500 inserts at once, then updates and deletes; killed the moment the last is acknowledged.
  const child = await holder(
    'killed',
    `const c = s.collection('things');
    await Promise.all(Array.from({ length: 500 }, (_, i) => c.insertOne({ _id: 'd' + i, n: i })));
    await c.updateMany({ n: { $lt: 100 } }, { $set: { touched: true } });
    await c.findOneAndUpdate({ _id: 'd499' }, { $set: { last: true } });
    await c.deleteMany({ n: { $gte: 400, $lt: 450 } });`,
  );
  await killed(child);
  const store = await open('killed');
  try {
    const c = store.collection<{ _id: string; n: number; touched?: boolean; last?: boolean }>('things');
    expect(await c.countDocuments({})).toBe(450);
    expect(await c.countDocuments({ touched: true })).toBe(100);
    expect(await c.findOne({ _id: 'd499' })).toEqual({ _id: 'd499', n: 499, last: true });
    expect(await c.findOne({ _id: 'd420' })).toBeNull();
  } finally {
    await store.close();
  }
}, 30_000);

test('a log cut short mid-line (a kill during a write, a full disk) opens, and takes new writes after it', async () => {
  const store = await open('torn');
  await store.collection('things').insertOne({ _id: 'a' });
  await store.close();
  await appendFile(join(dir.path, 'torn', 'things.log.jsonl'), '{"s":2,"put":{"_id":"half'); // no newline
  const reopened = await open('torn');
  await reopened.collection('things').insertOne({ _id: 'b' });
  await reopened.close();
  const again = await open('torn');
  expect((await again.collection('things').find({})).map((d) => d._id)).toEqual(['a', 'b']);
  await again.close();
});

test('a collection whose storage failed does not take the process down when its documents expire, and health says so', async () => {
  const store = await openEmbeddedDocStore({ dataDir: dir.path, database: 'failing', ttlIntervalMs: 50 });
  const c = store.collection<{ _id: string; at: Date }>('expiring');
  await c.createIndex({ keys: { at: 1 }, expireAfterSeconds: 0 });
  await store.close();
  // Its log cannot be written: a directory stands where the file goes.
  const { mkdir, rm } = await import('node:fs/promises');
  let sweeps = 0;
  const again = await openEmbeddedDocStore({ dataDir: dir.path, database: 'failing', ttlIntervalMs: 50, onSweep: () => sweeps++ });
  await rm(join(dir.path, 'failing', 'expiring.log.jsonl'), { force: true });
  await mkdir(join(dir.path, 'failing', 'expiring.log.jsonl'));
  await expect(again.collection<{ _id: string; at: Date }>('expiring').insertOne({ _id: 'x', at: past(10) })).rejects.toThrow();
  const before = sweeps;
  await waitFor('several sweeps over the expired document', () => sweeps >= before + 3);
  // Health (ping) reports it, so the failure is seen rather than found in failed requests only.
  await expect(again.ping()).rejects.toThrow(/^storage for expiring failed: EISDIR/);
  await expect(again.close()).rejects.toThrow();
  await expect(readFile(join(dir.path, 'failing', 'LOCK'))).rejects.toMatchObject({ code: 'ENOENT' }); // released all the same
});
