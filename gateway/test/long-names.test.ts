// Names the spec allows are the user's business, their bytes on disk the service's: 255
// characters of any script (up to about 1 KB of UTF-8, past the 255 bytes a Linux file name may
// have) work as an uploaded input, an output and a numbered output, end to end.
import { startTestStack, type TestStack } from '@media/stack/testing';
import { caller, PNG } from './helpers.js';

let stack: TestStack;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  stack = await startTestStack();
  api = caller(stack, (await stack.newAccount()).authorization);
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

// 200 Japanese characters: 600 bytes of UTF-8, plus the extension.
const japanese = (ext: string) => `${'動画の名前'.repeat(40)}${ext}`;

test('a 604-byte input name, output name and numbered output name', async () => {
  const input = japanese('.png');
  expect(Buffer.byteLength(input)).toBe(604);
  const reg = await api('POST', '/file', { file_name: input });
  expect(reg.status).toBe(200);
  expect((await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: PNG })).status).toBe(200);
  const dirId = reg.body.file.dir_id as string;
  const output = japanese('.jpg');
  const numbered = `${'名'.repeat(200)}_%02d.png`;
  const res = await api('POST', '/ffmpeg/process', {
    task: {
      inputs: [{ file_path: `${dirId}/${input}` }],
      outputs: [
        { file: output, options: ['-frames:v', '1'] },
        { file: numbered, options: ['-frames:v', '2', '-vf', 'loop=1:1'] },
      ],
    },
  });
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  const names = res.body.result.map((r: { file_name: string }) => r.file_name);
  expect(names).toEqual([output, `${'名'.repeat(200)}_01.png`, `${'名'.repeat(200)}_02.png`]);
  for (const item of res.body.result) expect((await fetch(item.download_url)).status).toBe(200);
  const listed = (await api('GET', `/directory/${dirId}`)).body.files.map((f: { file_name: string }) => f.file_name).sort();
  expect(listed).toEqual([input, ...names].sort());
}, 60_000);

test('a playlist keeps its name (its segments are named after it inside it): past 200 bytes, 400 saying so', async () => {
  const reg = await api('POST', '/file', { file_name: 'in.png' });
  await fetch(reg.body.upload.url, { method: 'PUT', headers: reg.body.upload.headers, body: PNG });
  const res = await api('POST', '/ffmpeg/process', {
    task: {
      inputs: [{ file_path: `${reg.body.file.dir_id}/in.png`, options: ['-loop', '1', '-t', '1'] }],
      outputs: [{ file: japanese('.m3u8'), options: ['-hls_time', '1'] }],
    },
  });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatch(
    /is a playlist, which names its segments after itself inside its text, so its name must fit on a disk with theirs: at most 200 bytes of UTF-8 .*; give it a shorter name$/,
  );
});
