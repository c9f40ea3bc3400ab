// Outputs of a sync POST /ffmpeg/process reach the user byte for byte, whichever way Jobs hands
// them to Storage: in place when Storage shares the disk (the embedded stack), streamed over RPC
// otherwise (JOBS_WORK_DIR=off here; S3 under TEST_ADAPTERS=networked).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Code } from '@connectrpc/connect';
import { StorageService } from '@media/proto/media/storage/v1/storage_pb.js';
import { createServiceClient } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';

const run = promisify(execFile);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// Same binary, same input, same options: bare ffmpeg writes the same bytes as the service's run.
const TRANSCODE = ['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '8', '-c:a', 'copy'];
const FRAMES = ['-vf', 'fps=2,scale=160:-2', '-frames:v', '3'];

let fixtures: string;
let input: Buffer;
/** What bare ffmpeg writes for each output of the task. */
const expected = new Map<string, Buffer>();

beforeAll(async () => {
  fixtures = await mkdtemp(join(tmpdir(), 'jobs-outputs-'));
  const inPath = join(fixtures, 'in.mp4');
  await run('ffmpeg', [
    ...[
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=duration=3:size=640x360:rate=25',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=3',
    ],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', inPath],
  ]);
  input = await readFile(inPath);
  const bare = (options: string[], output: string) =>
    run('ffmpeg', ['-v', 'error', '-nostdin', '-i', inPath, ...options, join(fixtures, output)]);
  await bare(TRANSCODE, 'out.mp4');
  await bare(FRAMES, 'frame_%02d.png');
  for (const name of ['out.mp4', 'frame_01.png', 'frame_02.png', 'frame_03.png']) expected.set(name, await readFile(join(fixtures, name)));
}, 60_000);
afterAll(async () => {
  await rm(fixtures, { recursive: true, force: true });
});

async function processOn(stack: TestStack) {
  const { authorization } = await stack.newAccount();
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${stack.gatewayUrl}${path}`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const reg = await call('/file', { file_name: 'in.mp4' });
  expect((await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: input })).status).toBe(200);
  const dirId = reg.body.file.dir_id;
  const res = await call('/ffmpeg/process', {
    task: {
      inputs: [{ file_path: `${dirId}/in.mp4` }],
      outputs: [
        { file: 'out.mp4', options: TRANSCODE },
        { file: 'frame_%02d.png', options: FRAMES },
      ],
    },
  });
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  const info = async (name: string) => {
    const r = await fetch(`${stack.gatewayUrl}/file/${dirId}/${name}`, { headers: { authorization } });
    return ((await r.json()) as any).file_info;
  };
  return { res, info };
}

async function expectOutputsExact(stack: TestStack) {
  const { res, info } = await processOn(stack);
  expect(res.body.result.map((r: any) => r.file_name).sort()).toEqual([...expected.keys()].sort());
  let outBytes = 0;
  for (const item of res.body.result) {
    const want = expected.get(item.file_name)!;
    const got = Buffer.from(await (await fetch(item.download_url)).arrayBuffer());
    expect({ name: item.file_name, size: got.length, sha: sha(got) }).toEqual({ name: item.file_name, size: want.length, sha: sha(want) });
    expect(item.size_bytes).toBe(want.length);
    expect(await info(item.file_name)).toEqual({
      file_path: expect.stringMatching(new RegExp(`/${item.file_name}$`)),
      file_type: item.file_name.endsWith('.png') ? 'image/png' : 'video/mp4',
      file_size: want.length,
    });
    outBytes += want.length;
  }
  expect(res.body.usage.output_size_gb).toBe(outBytes / 1e9);
  expect(res.body.usage.input_size_gb).toBe(input.length / 1e9);
  expect(expected.get('out.mp4')!.length).toBeGreaterThan(256 * 1024); // several RPC chunks when streamed
}

/** Whether this stack's Storage takes a file of its Jobs work directory in place. */
async function storesInPlace(stack: TestStack): Promise<boolean> {
  const jobDir = join(stack.dataDir, 'jobs', 'work', 'job_probe-abc');
  await mkdir(jobDir, { recursive: true });
  await writeFile(join(jobDir, 'x.txt'), 'x');
  const storage = createServiceClient(StorageService, stack.urls.storage, { interceptors: stack.callAs('jobs') });
  try {
    const accountId = 'acc_probe';
    const dirId = (await storage.client.createDirectory({ accountId })).directory!.id;
    const header = { accountId, dirId, fileName: 'x.txt', size: 1n, overwrite: false, downloadExpiresInSeconds: 60 };
    await storage.client.storeLocalFile({ header, sourcePath: join(jobDir, 'x.txt') });
    return true;
  } catch (err) {
    expect(err).toMatchObject({ code: Code.FailedPrecondition });
    return false;
  } finally {
    storage.close();
    await rm(jobDir, { recursive: true, force: true });
  }
}

test('sync process: outputs stored in place (Storage shares the disk) download byte-identical to bare ffmpeg', async () => {
  const stack = await startTestStack();
  try {
    // The embedded stack's Storage trusts its Jobs work directory; on S3 (networked) it streams.
    expect(await storesInPlace(stack)).toBe(stack.networked?.s3 === undefined);
    await expectOutputsExact(stack);
  } finally {
    await stack.close();
  }
});

test('sync process: outputs streamed to Storage (no shared disk) download byte-identical to bare ffmpeg', async () => {
  const stack = await startTestStack({ JOBS_WORK_DIR: 'off' });
  try {
    expect(await storesInPlace(stack)).toBe(false);
    await expectOutputsExact(stack);
  } finally {
    await stack.close();
  }
});
