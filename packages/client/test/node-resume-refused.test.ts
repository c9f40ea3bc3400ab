// uploadFile with `resume` when the service refuses a recorded upload, against a loopback tus
// server of the test's own: only a refusal that ends the upload (403 "This URL has expired.",
// 404, 409, 410) drops the record and starts over; a 503 or an account not active is thrown and
// the record kept, and a later call continues from the offset the service has, same file_path.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MediaApiError, type MediaClient } from '@media/client';
import { fileUrlStorage, type ResumeEvent, uploadFile } from '@media/client/node';

const SIZE = 64 * 1024;
const KEPT = 20_000;
let dir: string;
let server: Server;
let base = '';
const expires = new Date(Date.now() + 300_000).toUTCString();
/** The bytes the fake service holds, by upload path. */
const parts = new Map<string, Buffer>();
/** What the next HEAD and PATCH answer, when not 2xx. */
let refusal: { status: number; body: string; headers?: Record<string, string>; only?: string } | undefined;
let registrations = 0;

function handle(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const path = new URL(req.url!, base).pathname;
    const tusHeaders = { 'Tus-Resumable': '1.0.0', 'Upload-Expires': expires };
    if (req.method === 'OPTIONS') return res.writeHead(204, tusHeaders).end();
    if (refusal && (refusal.only === undefined || refusal.only === path))
      return res.writeHead(refusal.status, { ...tusHeaders, ...refusal.headers }).end(refusal.body);
    if (req.method === 'POST') {
      parts.set(path, Buffer.alloc(0));
      return res.writeHead(201, { ...tusHeaders, Location: `${base}${path}` }).end();
    }
    const part = parts.get(path);
    if (!part) return res.writeHead(404, tusHeaders).end('Not found');
    if (req.method === 'HEAD')
      return res.writeHead(200, { ...tusHeaders, 'Upload-Offset': String(part.length), 'Upload-Length': String(SIZE) }).end();
    if (req.method === 'PATCH') {
      const next = Buffer.concat([part, ...chunks]);
      parts.set(path, next);
      return res.writeHead(204, { ...tusHeaders, 'Upload-Offset': String(next.length) }).end();
    }
    res.writeHead(405).end();
  });
}

/** A client that registers names at the fake service (the rest of MediaClient is not used). */
const client = {
  register: async (name: string) => {
    registrations++;
    const dirId = `dir_new${registrations}`;
    return {
      ok: true,
      file: { dir_id: dirId, file_name: name, file_path: `${dirId}/${name}`, added_on: new Date().toISOString() },
      upload: { url: `${base}/up/${dirId}`, method: 'PUT', headers: {}, expiresInSeconds: 300 },
    };
  },
  fileInfo: async () => {
    throw new MediaApiError(404, 'not found');
  },
} as unknown as MediaClient;

let data: Buffer;
const storagePath = () => join(dir, 'tus-uploads.json');
const records = async () => Object.values(JSON.parse(await readFile(storagePath(), 'utf8')) as Record<string, { uploadUrl: string }>);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-resume-refused-'));
  data = randomBytes(SIZE);
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

/** A file with a recorded upload of which the service holds the first KEPT bytes (a run cut short). */
async function interrupted(name: string) {
  const path = join(dir, name);
  await writeFile(path, data);
  // Made by a run that a 503 stops after KEPT bytes: its record is what a later run finds.
  parts.clear();
  refusal = undefined;
  const urlStorage = await fileUrlStorage(storagePath());
  await writeFile(storagePath(), '{}');
  const first = uploadFile(client, path, { resume: { urlStorage, scope: 't' }, chunkSize: KEPT });
  // The first PATCH lands; then every request is refused (as a service that went away).
  const cut = new Promise<void>((resolve) => {
    const poll = () => {
      const held = [...parts.values()][0];
      if (held && held.length >= KEPT) {
        refusal = { status: 403, body: 'This account is suspended; contact support.' };
        resolve();
      } else setImmediate(poll);
    };
    poll();
  });
  await cut;
  await expect(first).rejects.toThrow('This account is suspended');
  const [record] = await records();
  expect(record).toBeDefined();
  expect(parts.get(new URL(record!.uploadUrl).pathname)!.length).toBe(KEPT);
  return { path, urlStorage, record: record! };
}

test.each([
  ['a 503 (the service busy), Retry-After', { status: 503, body: 'Storage is short of disk space.', headers: { 'Retry-After': '0' } }],
  ['a 403 of an account not active', { status: 403, body: 'This account is suspended; contact support.' }],
])(
  'a resume that meets %s keeps the record; a later call continues from the offset',
  async (_what, answer) => {
    const { path, urlStorage, record } = await interrupted('a.bin');
    const registered = registrations;
    refusal = answer;
    const events: ResumeEvent[] = [];
    const resume = { urlStorage, scope: 't' };
    // A HEAD's answer has no body: the status is what the caller learns (a 403 is asked again).
    const refused = uploadFile(client, path, { resume, onResume: (e) => events.push(e) });
    await expect(refused).rejects.toMatchObject({ status: answer.status });
    if (answer.status === 403) await expect(refused).rejects.toThrow(answer.body);
    expect(events.filter((e) => e.kind === 'restarted')).toEqual([]);
    expect(await records()).toEqual([record]);

    refusal = undefined;
    const again = await uploadFile(client, path, { resume, onResume: (e) => events.push(e) });
    const filePath = (JSON.parse(JSON.stringify(record)) as { metadata: { file_path: string } }).metadata.file_path;
    expect(again.file.file_path).toBe(filePath);
    expect(events).toContainEqual({ kind: 'resumed', offset: KEPT, total: SIZE, filePath });
    expect(registrations).toBe(registered);
    expect(parts.get(new URL(record.uploadUrl).pathname)!.equals(data)).toBe(true);
    expect(await records()).toEqual([]);
  },
  60_000,
);

test.each([
  ['403 "This URL has expired."', 403, 'This URL has expired.'],
  ['403 "The signature of this URL is not valid."', 403, 'The signature of this URL is not valid.'],
  ['404', 404, 'Not found'],
  ['410', 410, 'Gone'],
])(
  'a resume refused with %s starts over on a new registration',
  async (_what, status, body) => {
    const { path, urlStorage, record } = await interrupted('b.bin');
    const registered = registrations;
    const events: ResumeEvent[] = [];
    const resume = { urlStorage, scope: 't' };
    // Only the old upload is refused: the new one goes through.
    refusal = { status, body, only: new URL(record.uploadUrl).pathname };
    try {
      const got = await uploadFile(client, path, { resume, onResume: (e) => events.push(e) });
      expect(registrations).toBe(registered + 1);
      expect(got.file.file_path).not.toBe((record as unknown as { metadata: { file_path: string } }).metadata.file_path);
      expect(events.map((e) => e.kind)).toContain('restarted');
      expect(parts.get(new URL(got.upload!.url!).pathname)!.equals(data)).toBe(true);
      expect(await records()).toEqual([]);
    } finally {
      refusal = undefined;
    }
  },
  60_000,
);

test('a file rewritten in place at the same size and mtime (cp -p) is not spliced onto its old upload', async () => {
  const { path, urlStorage, record } = await interrupted('c.bin');
  refusal = undefined;
  const { mtime } = await stat(path);
  const other = randomBytes(SIZE);
  await writeFile(path, other);
  await utimes(path, mtime, mtime);
  const registered = registrations;
  const events: ResumeEvent[] = [];
  const got = await uploadFile(client, path, { resume: { urlStorage, scope: 't' }, onResume: (e) => events.push(e) });
  expect(events.map((e) => e.kind)).not.toContain('resumed');
  expect(registrations).toBe(registered + 1);
  expect(parts.get(new URL(got.upload!.url!).pathname)!.equals(other)).toBe(true);
  // The old upload's record is the only one left (its own file is gone; the prune takes it).
  expect(await records()).toEqual([record]);
}, 60_000);
