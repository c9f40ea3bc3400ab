// The recipe suite through the API, as a user runs it: every fixture uploaded into one directory,
// each recipe sent unchanged to POST /ffmpeg/process, every result file downloaded through its
// signed URL and checked with ffprobe against what the same recipe gives with plain ffmpeg
// (plain-ffmpeg.test.ts proves the expectations there). Embedded adapters only: the recipes test
// the policy and the runner, not the stores.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestStack, testAdapters, type TestStack } from '@media/stack/testing';
import { caller } from '../helpers.js';
import { checkOutputs } from './expect.js';
import { makeFixtures } from './fixtures.js';
import { RECIPES, type Recipe } from './recipes.js';

let stack: TestStack;
let api: ReturnType<typeof caller>;
let work: string;
let dirId: string;

const suite = testAdapters() === 'embedded' ? describe : describe.skip;

async function upload(name: string, bytes: Buffer, dir?: string): Promise<string> {
  const { body, status } = await api('POST', '/file', dir ? { file_name: name, dir_id: dir } : { file_name: name });
  expect(status).toBe(200);
  const put = await fetch(body.upload.url, { method: 'PUT', headers: body.upload.headers, body: bytes });
  expect(put.status).toBe(200);
  return body.file.dir_id;
}

/** The task with '{dir}' replaced by the fixtures' directory. */
const withDir = (task: Recipe['task']): unknown => JSON.parse(JSON.stringify(task).replaceAll('{dir}', dirId));

suite('everyday recipes through POST /ffmpeg/process', () => {
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'recipes-api-'));
    const names = await makeFixtures(join(work, 'fixtures'));
    // Two ffmpeg runs at once, as the recipes are sent two at a time.
    stack = await startTestStack({ WORKER_CONCURRENCY: '2' });
    api = caller(stack, (await stack.newAccount()).authorization);
    const [first, ...rest] = names;
    dirId = await upload(first!, await readFile(join(work, 'fixtures', first!)));
    for (const name of rest) await upload(name, await readFile(join(work, 'fixtures', name)), dirId);
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function run(recipe: Recipe): Promise<string[]> {
    const res = await api('POST', '/ffmpeg/process', { task: withDir(recipe.task) });
    if (res.status !== 200) return [`answered ${res.status}: ${res.body?.error}`];
    const out = join(work, recipe.id);
    await rm(out, { recursive: true, force: true });
    await mkdir(out, { recursive: true });
    const files: Array<{ fileName: string; path: string }> = [];
    for (const item of res.body.result as Array<{ file_name: string; size_bytes: number; download_url: string }>) {
      const got = await fetch(item.download_url);
      const bytes = Buffer.from(await got.arrayBuffer());
      if (bytes.length !== item.size_bytes) return [`${item.file_name}: downloaded ${bytes.length} bytes, result says ${item.size_bytes}`];
      const path = join(out, item.file_name);
      await writeFile(path, bytes);
      files.push({ fileName: item.file_name, path });
    }
    // Charged by GB-seconds (amount_usd of a tiny run may round to 0).
    if (!(res.body.usage?.gb_sec > 0)) return [`not charged: ${JSON.stringify(res.body.usage)}`];
    return checkOutputs(recipe, files);
  }

  test(`${RECIPES.length} recipes run and give what plain ffmpeg gives`, async () => {
    const failures: string[] = [];
    const queue = [...RECIPES];
    await Promise.all(
      [0, 1].map(async () => {
        for (let r = queue.shift(); r; r = queue.shift()) {
          const problems = await run(r);
          if (problems.length > 0) failures.push(`${r.id} (${r.source}):\n  ${problems.join('\n  ')}`);
        }
      }),
    );
    expect(failures).toEqual([]);
  }, 600_000);
});
