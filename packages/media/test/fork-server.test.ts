// The ffmpeg fork server: runs are forked from a server (not exec'd), get the sandbox a direct run
// gets, end cleanly when the server dies, and servers are replaced after their share of runs.
// (Every runFfmpeg case also runs both ways: ffmpeg-run.test.ts; the protocol's own tests are in
// packages/fork-server.)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError } from '@media/platform';
import { encodeRequest, forkServerLibrary, FrameReader, type ForkServerPool } from '@media/fork-server';
import { createForkServers, resolveBinaries } from '../src/ffmpeg/index.js';
import { limitsFor } from '../src/ffmpeg/limits.js';
import { startSandboxed, type SandboxProcess } from '../src/ffmpeg/sandbox.js';
import { makeWorkDir } from './ffmpeg-fixtures.js';

const built = forkServerLibrary() !== undefined;
const hasCompiler = spawnSync(process.env.CC || 'cc', ['--version']).status === 0;
const withServer = built ? describe : describe.skip;

let work: { path: string; remove: () => Promise<void> };
let ffmpeg: string;
let ffprobe: string;
/** The pool runs are started from (each test that needs other settings makes its own). */
const pool: ForkServerPool = createForkServers({ enabled: true });

beforeAll(async () => {
  ({ ffmpeg, ffprobe } = await resolveBinaries());
  work = await makeWorkDir();
});
afterAll(async () => {
  await pool.close();
  await work.remove();
});

const TINY = ['-hide_banner', '-nostdin', '-y', '-f', 'lavfi', '-i', 'testsrc=s=64x64:d=1', '-frames:v', '1'];
// Runs until killed (10 minutes of real-time frames).
const ENDLESS = ['-hide_banner', '-nostdin', '-re', '-f', 'lavfi', '-i', 'testsrc=s=64x64:d=600', '-f', 'null', '-'];

function start(bin: string, args: string[], extra: Partial<Parameters<typeof startSandboxed>[0]> = {}): Promise<SandboxProcess> {
  return startSandboxed({
    bin,
    args,
    cwd: work.path,
    timeoutMs: 30_000,
    limits: limitsFor(30_000, 123_456_789),
    forkServers: pool,
    ...extra,
  });
}

async function stat(pid: number): Promise<{ ppid: number; sid: number }> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), sid: Number(fields[3]) };
}

/** Waits until the run has set itself up (its own session) and returns its parent's pid. */
async function settled(pid: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const { ppid, sid } = await stat(pid);
    if (sid === pid) return ppid;
    await sleep(10);
  }
  throw new Error(`run ${pid} never got its own session`);
}

/** No such process, or a zombie: dead, waiting for whoever inherited it (here PID 1) to reap it. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const text = spawnSync('cat', [`/proc/${pid}/stat`]).stdout.toString();
  return text === '' || text.slice(text.lastIndexOf(')') + 2).startsWith('Z');
}

describe('build', () => {
  (hasCompiler ? it : it.skip)('npm run build compiles the library where a C compiler exists', () => {
    expect(built).toBe(true);
  });
});

withServer('runs forked from the server', () => {
  it('runs ffmpeg as a child of its server, in the run directory, with its exit code and output', async () => {
    const running = await start(ffmpeg, ENDLESS);
    const parent = await settled(running.pid!);
    expect(parent).not.toBe(process.pid);
    expect(await readlink(`/proc/${parent}/exe`)).toBe(await realpath(ffmpeg));
    running.kill(new Error('done'));
    await running.done;

    const exit = await (await start(ffmpeg, [...TINY, 'tiny.png'])).done;
    expect(exit).toMatchObject({ exitCode: 0, signal: undefined, killReason: undefined });
    expect(existsSync(join(work.path, 'tiny.png'))).toBe(true);
  });

  it('keeps stdout and stderr apart, and reports a failing exit code', async () => {
    await (await start(ffmpeg, [...TINY, 'probe-me.png'])).done;
    let stdout = '';
    const probed = await start(ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', 'probe-me.png'], {
      onStdout: (chunk) => (stdout += chunk.toString()),
    });
    expect((await probed.done).exitCode).toBe(0);
    expect(JSON.parse(stdout).format.format_name).toBe('png_pipe');

    stdout = '';
    const failed = await (
      await start(ffmpeg, ['-hide_banner', '-i', 'missing.png', 'x.png'], { onStdout: (c) => (stdout += c.toString()) })
    ).done;
    expect(failed.exitCode).not.toBe(0);
    expect(failed.stderr.join('\n')).toContain('missing.png: No such file or directory');
    expect(stdout).toBe('');
  });

  it("gives each run the sandbox: its own session, stdin /dev/null, no inherited descriptors, the run's limits", async () => {
    const run = await start(ffmpeg, ENDLESS);
    const pid = run.pid!;
    await settled(pid);
    const fds = await readdir(`/proc/${pid}/fd`);
    const targets = await Promise.all(fds.map(async (fd) => [fd, await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')] as const));
    const byFd = new Map(targets);
    expect(byFd.get('0')).toBe('/dev/null');
    expect(byFd.get('1')).toMatch(/^pipe:/);
    expect(byFd.get('2')).toMatch(/^pipe:/);
    // Nothing of the server's: no listening socket, no other run's connection or pipes.
    expect(targets.filter(([, t]) => t.startsWith('socket:'))).toEqual([]);
    const limits = await readFile(`/proc/${pid}/limits`, 'utf8');
    expect(limits).toMatch(/Max file size\s+123456789\s+123456789/);
    expect(limits).toMatch(/Max core file size\s+0\s+0/);
    expect(limits).toMatch(/Max open files\s+512\s+512/);

    const reason = new Error('stopped by the test');
    run.kill(reason);
    const exit = await run.done;
    expect(exit).toMatchObject({ signal: 'SIGKILL', killReason: reason });
    expect(gone(pid)).toBe(true);
  });

  it('kills a run whose caller aborts, and the time limit still applies', async () => {
    const controller = new AbortController();
    const run = await start(ffmpeg, ENDLESS, { signal: controller.signal });
    await settled(run.pid!);
    controller.abort(new Error('cancelled'));
    expect((await run.done).killReason).toEqual(new Error('cancelled'));
    expect(gone(run.pid!)).toBe(true);

    const timed = await start(ffmpeg, ENDLESS, { timeoutMs: 300 });
    const exit = await timed.done;
    expect(exit.killReason).toBeInstanceOf(DomainError);
    expect((exit.killReason as DomainError).message).toBe('Processing timed out');
  });

  it('ends a run cleanly when its server dies, and the next run gets a new server', async () => {
    const run = await start(ffmpeg, ENDLESS);
    const server = await settled(run.pid!);
    process.kill(server, 'SIGKILL');
    const exit = await run.done;
    expect(exit.signal).toBe('SIGKILL');
    expect(exit.killReason).toBeInstanceOf(DomainError);
    expect((exit.killReason as DomainError).message).toBe('Internal error. Retry the request.');
    // The run died with its parent (its parent-death signal), not left running.
    for (let i = 0; i < 100 && !gone(run.pid!); i++) await sleep(10);
    expect(gone(run.pid!)).toBe(true);

    const next = await start(ffmpeg, ENDLESS);
    const nextServer = await settled(next.pid!);
    expect(nextServer).not.toBe(server);
    expect(nextServer).not.toBe(process.pid);
    next.kill(new Error('done'));
    await next.done;
    expect((await (await start(ffmpeg, [...TINY, 'after.png'])).done).exitCode).toBe(0);
  });

  it('replaces a server after its share of runs, and the old one ends once its runs have', async () => {
    const small = createForkServers({ enabled: true, runsPerServer: 2 });
    const parents: number[] = [];
    for (let i = 0; i < 3; i++) {
      const run = await start(ffmpeg, ENDLESS, { forkServers: small });
      parents.push(await settled(run.pid!));
      run.kill(new Error('done'));
      await run.done;
    }
    expect(parents[1]).toBe(parents[0]);
    expect(parents[2]).not.toBe(parents[0]);
    for (let i = 0; i < 200 && !gone(parents[0]!); i++) await sleep(10);
    expect(gone(parents[0]!)).toBe(true);
    await small.close();
  });
});

withServer('who may ask for a run', () => {
  /** The sockets of this process's servers, once one is running. */
  async function sockets(): Promise<string[]> {
    await (await start(ffmpeg, [...TINY, 'warm.png'])).done;
    return pool.sockets();
  }

  /** The frames a raw request gets, read until the server closes the connection. */
  function ask(socket: string, request: Buffer): Promise<string[]> {
    return new Promise((resolve) => {
      const frames: string[] = [];
      const reader = new FrameReader((type, payload) => frames.push(`${String.fromCharCode(type)}:${payload.toString()}`));
      const sock = connect(socket);
      sock.on('data', (c: Buffer) => reader.push(c));
      sock.on('error', () => {});
      sock.on('close', () => resolve(frames));
      sock.write(request);
    });
  }

  it('refuses a request without all five limits: no ffmpeg runs', async () => {
    const [socket] = await sockets();
    const frames = await ask(socket!, encodeRequest(work.path, {}, { as: 1 << 30 }, [ffmpeg, ...TINY, 'unlimited.png']));
    expect(frames.find((f) => f.startsWith('e:'))).toContain('a run needs all five limits');
    expect(frames.at(-1)!.split(' ')[0]).toBe(`x:${127 << 8}`);
    expect(existsSync(join(work.path, 'unlimited.png'))).toBe(false);
  });

  it('serves only the service that started it, not another process of the same user (such as a run)', async () => {
    const found = await sockets();
    expect(found.length).toBeGreaterThan(0);
    const request = encodeRequest(work.path, {}, { as: 1 << 30, fsize: 1 << 20, nofile: 64, cpu: 10, core: 0 }, [
      ffmpeg,
      ...TINY,
      'intruder.png',
    ]);
    const script = `const s = require('net').connect(process.argv[1]); let n = 0; s.on('data', (c) => (n += c.length)); s.on('error', () => {}); s.on('close', () => console.log(n)); s.write(Buffer.from(process.argv[2], 'base64'));`;
    for (const socket of found) {
      const other = spawnSync(process.execPath, ['-e', script, socket, request.toString('base64')], { timeout: 10_000 });
      expect(other.stdout.toString().trim()).toBe('0');
    }
    expect(existsSync(join(work.path, 'intruder.png'))).toBe(false);
  });
});

describe('FFMPEG_FORK_SERVER=off', () => {
  it('starts each run directly: ffmpeg is our own child (through the exec-ing wrappers)', async () => {
    const off = createForkServers({ enabled: false });
    const run = await start(ffmpeg, ENDLESS, { forkServers: off });
    expect((await stat(run.pid!)).ppid).toBe(process.pid);
    run.kill(new Error('done'));
    await run.done;
  });
});

describe('one pool per owner', () => {
  (built ? it : it.skip)("two pools in one process keep their own settings and servers; closing one leaves the other's", async () => {
    const a = createForkServers({ enabled: true });
    const b = createForkServers({ enabled: false });
    const onA = await start(ffmpeg, ENDLESS, { forkServers: a });
    const onB = await start(ffmpeg, ENDLESS, { forkServers: b });
    const serverA = await settled(onA.pid!);
    expect(serverA).not.toBe(process.pid); // forked from a's server
    expect((await stat(onB.pid!)).ppid).toBe(process.pid); // b is off: a direct run
    const onPool = await start(ffmpeg, ENDLESS);
    expect(await settled(onPool.pid!)).not.toBe(serverA); // the shared pool has a server of its own
    await a.close();
    expect((await onA.done).signal).toBe('SIGKILL');
    expect(gone(onPool.pid!)).toBe(false);
    for (const run of [onB, onPool]) run.kill(new Error('done'));
    await Promise.all([onB.done, onPool.done]);
  });
});
