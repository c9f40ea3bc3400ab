// `media mcp`'s upload_file resumes a local file (tus, where the upload URL offers it): an MCP
// server stopped while it uploads leaves the upload in the CLI's record, and the next server's
// upload_file of the same file continues it from the offset the service kept, into the same
// file_path; the file is listed and byte-identical. Against `npm start` (local disk).
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MediaClient } from '@media/client';
import type { Spawned } from '@media/testkit';
import { type Entry, entries, mediaJs, offsetOf, partBytes, poll, stackWithKey } from './harness.js';

const SIZE = 128 * 1024 * 1024;
let stack: Spawned;
let dir: string;
let env: Record<string, string>;
let media: MediaClient;
let data: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'media-mcp-resume-'));
  const { stack: s, key } = await stackWithKey('mcp-resume');
  stack = s;
  env = { PATH: process.env.PATH!, MEDIA_API_URL: stack.baseUrl, MEDIA_API_KEY: key, XDG_CACHE_HOME: join(dir, 'cache') };
  media = new MediaClient({ baseUrl: stack.baseUrl, apiKey: key });
  data = randomBytes(SIZE);
  await writeFile(join(dir, 'big.bin'), data);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** An MCP client on a `media mcp` server process of its own (closing the client stops it). */
async function connect(): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [mediaJs, 'mcp'], env, cwd: dir, stderr: 'ignore' });
  const client = new Client({ name: 'mcp-resume-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

const cacheHome = () => join(dir, 'cache');

/**
 * upload_file on a server killed once the service has part of the file (as a laptop's lid closing
 * would stop it); the record's entry, or undefined when the upload ended before the kill landed
 * (the caller tries again).
 */
async function stoppedUpload(): Promise<Entry | undefined> {
  const { client, pid } = await connect();
  let ended = false;
  const call = client.callTool({ name: 'upload_file', arguments: { path: join(dir, 'big.bin') } }).then(
    () => (ended = true),
    () => (ended = true),
  );
  const entry = await poll(
    async () => (await entries(cacheHome()))[0],
    30_000,
    () => ended,
  );
  const partial =
    entry &&
    (await poll(
      async () => ((n) => (n > 0 && n < SIZE ? n : undefined))(await partBytes(stack, entry.uploadUrl)),
      30_000,
      () => ended,
    ));
  process.kill(pid, 'SIGKILL');
  await client.close();
  await call;
  if (partial === undefined) return undefined;
  const kept = await offsetOf(entry!.uploadUrl);
  return kept > 0 && kept < SIZE ? entry : undefined;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test('upload_file continues an upload its stopped server left, from the offset the service kept', async () => {
  let entry: Entry | undefined;
  for (let attempt = 1; attempt <= 3 && !entry; attempt++) {
    // A new mtime is a new file to the client: an earlier attempt's upload is not resumed.
    await utimes(join(dir, 'big.bin'), new Date(), new Date(Date.now() + attempt * 1000));
    entry = await stoppedUpload();
  }
  expect(entry).toBeDefined();
  const kept = await offsetOf(entry!.uploadUrl);

  const { client } = await connect();
  try {
    const res = await client.callTool({ name: 'upload_file', arguments: { path: join(dir, 'big.bin') } });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toEqual({
      file_path: entry!.metadata.file_path,
      dir_id: entry!.metadata.dir_id,
      file_name: 'big.bin',
      size_bytes: SIZE,
      resumed_at_bytes: kept,
    });
  } finally {
    await client.close();
  }
  expect(await entries(cacheHome())).toEqual([]);
  const [dirId, name] = entry!.metadata.file_path!.split('/') as [string, string];
  expect((await media.listFiles(dirId)).files.map((f: { file_name: string }) => f.file_name)).toEqual(['big.bin']);
  const { download } = await media.downloadUrl(dirId, name);
  expect(sha256(Buffer.from(await (await fetch(download.url)).arrayBuffer()))).toBe(sha256(data));
}, 120_000);
