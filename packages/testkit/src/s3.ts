// s3rver for tests, in a child process: s3rver 3.7 encrypts list continuation tokens with DES,
// which Node 17+ only offers with --openssl-legacy-provider, and jest's own NODE_OPTIONS must
// not carry that flag. Loopback only; the child exits when the test process goes away.
// s3rver lacks three multipart calls that @tus/s3-store and the tus sweep make (ListParts,
// AbortMultipartUpload, ListMultipartUploads): the child answers those itself, in front of
// s3rver, from the uploads s3rver keeps on disk (DIR/BUCKET/._S3rver_uploads/ID/{key,N,N.md5}).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { tempDir } from './tmp.js';

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Keys in the bucket (optionally under a prefix), read through the S3 API. */
  listKeys(prefix?: string): Promise<string[]>;
  /** Keys of the multipart uploads neither completed nor aborted (optionally under a prefix). */
  listMultipartUploads(prefix?: string): Promise<string[]>;
  stop(): Promise<void>;
  /**
   * Stops and starts again on the same port and directory (objects survive). `whileDown`, if
   * given, runs between the stop and the start (fault tests); the server is started again even
   * if it throws (and its error is then rethrown).
   */
  restart(whileDown?: () => Promise<void> | void): Promise<void>;
}

// CommonJS run with `node -e`; reports the bound port as one JSON line on stdout.
const CHILD = `
const S3rver = require(process.env.S3RVER_MODULE);
const server = new S3rver({
  address: '127.0.0.1', port: Number(process.env.S3RVER_PORT), directory: process.env.S3RVER_DIR,
  silent: true, configureBuckets: [{ name: process.env.S3RVER_BUCKET }],
});
const fs = require('node:fs');
const path = require('node:path');
const xml = (s) => String(s).replace(/[<>&'"]/g, (c) => '&#' + c.charCodeAt(0) + ';');
const send = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(body === undefined ? undefined : '<?xml version="1.0" encoding="UTF-8"?>' + body);
};
const noSuchUpload = (res) =>
  send(res, 404, '<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>');
function multipartExtra(req, res) {
  const url = new URL(req.url, 'http://s3');
  const [bucket, ...rest] = url.pathname.slice(1).split('/').map(decodeURIComponent);
  const key = rest.join('/');
  const uploads = path.join(process.env.S3RVER_DIR, bucket ?? '', '._S3rver_uploads');
  const uploadId = url.searchParams.get('uploadId');
  if (key && uploadId && (req.method === 'GET' || req.method === 'DELETE')) {
    const dir = path.join(uploads, path.basename(uploadId));
    if (!fs.existsSync(dir)) return noSuchUpload(res), true;
    if (req.method === 'DELETE') return fs.rmSync(dir, { recursive: true, force: true }), send(res, 204), true;
    // A part is listed once stored: its .md5 is written after its bytes.
    const parts = fs.readdirSync(dir).filter((n) => /^\\d+\\.md5$/.test(n)).map((n) => Number(n.slice(0, -4))).sort((a, b) => a - b);
    const body = parts.map((n) => {
      const size = fs.statSync(path.join(dir, String(n))).size;
      const md5 = fs.readFileSync(path.join(dir, n + '.md5'), 'utf8');
      return '<Part><PartNumber>' + n + '</PartNumber><ETag>&quot;' + md5 + '&quot;</ETag><Size>' + size + '</Size></Part>';
    });
    send(res, 200, '<ListPartsResult><Bucket>' + xml(bucket) + '</Bucket><Key>' + xml(key) + '</Key><UploadId>' + xml(uploadId) +
      '</UploadId><IsTruncated>false</IsTruncated>' + body.join('') + '</ListPartsResult>');
    return true;
  }
  if (!key && req.method === 'GET' && url.searchParams.has('uploads')) {
    const prefix = url.searchParams.get('prefix') ?? '';
    const ids = fs.existsSync(uploads) ? fs.readdirSync(uploads) : [];
    const body = ids.flatMap((id) => {
      const upload = path.join(uploads, id);
      try {
        const k = fs.readFileSync(path.join(upload, 'key'), 'utf8');
        if (!k.startsWith(prefix)) return [];
        const initiated = fs.statSync(upload).birthtime.toISOString();
        return ['<Upload><Key>' + xml(k) + '</Key><UploadId>' + xml(id) + '</UploadId><Initiated>' + initiated + '</Initiated></Upload>'];
      } catch {
        return []; // being started, completed or aborted meanwhile
      }
    });
    send(res, 200, '<ListMultipartUploadsResult><Bucket>' + xml(bucket) + '</Bucket><IsTruncated>false</IsTruncated>' +
      body.join('') + '</ListMultipartUploadsResult>');
    return true;
  }
  return false;
}
server.run().then(
  (address) => {
    const s3rver = server.httpServer.listeners('request')[0];
    server.httpServer.removeAllListeners('request');
    server.httpServer.on('request', (req, res) => {
      try {
        if (!multipartExtra(req, res)) s3rver(req, res);
      } catch (err) {
        send(res, 500, '<Error><Code>InternalError</Code><Message>' + xml(err.message) + '</Message></Error>');
      }
    });
    process.stdout.write(JSON.stringify({ port: address.port }) + '\\n');
  },
  (err) => { console.error(err); process.exit(1); },
);
const quit = () => {
  server.close().finally(() => process.exit(0));
  server.httpServer.closeAllConnections(); // idle keep-alive clients must not delay a restart
};
process.on('SIGTERM', quit);
process.stdin.on('end', quit); // the parent died or closed our stdin
process.stdin.resume();
`;

const BUCKET = 'test-bucket';
const CREDENTIAL = 'S3RVER'; // the access key id and secret s3rver knows

export async function startS3Server(): Promise<S3TestServer> {
  const dir = await tempDir('s3rver-');
  const modulePath = createRequire(import.meta.url).resolve('s3rver');
  let child: ChildProcess | undefined;
  let port = 0;

  const start = async (): Promise<void> => {
    const started = await launch(modulePath, port, dir.path);
    child = started.child;
    port = started.port;
  };
  const stopChild = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running && running.exitCode === null && running.signalCode === null) {
      running.removeAllListeners('exit');
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    }
  };

  try {
    await start();
  } catch (err) {
    await dir.remove();
    throw err;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: BUCKET,
    accessKeyId: CREDENTIAL,
    secretAccessKey: CREDENTIAL,
    region: 'us-east-1',
    listKeys: (prefix) => listKeys(`http://127.0.0.1:${port}`, prefix),
    listMultipartUploads: (prefix) => listMultipartUploads(`http://127.0.0.1:${port}`, prefix),
    async stop() {
      await stopChild();
      await dir.remove();
    },
    async restart(whileDown) {
      await stopChild();
      try {
        await whileDown?.();
      } finally {
        await start();
      }
    },
  };
}

async function testClient(endpoint: string) {
  const { S3Client } = await import('@aws-sdk/client-s3');
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: CREDENTIAL, secretAccessKey: CREDENTIAL },
  });
}

async function listMultipartUploads(endpoint: string, prefix?: string): Promise<string[]> {
  const { ListMultipartUploadsCommand } = await import('@aws-sdk/client-s3');
  const client = await testClient(endpoint);
  try {
    const page = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: prefix }));
    return (page.Uploads ?? []).flatMap((u) => (u.Key ? [u.Key] : []));
  } finally {
    client.destroy();
  }
}

async function listKeys(endpoint: string, prefix?: string): Promise<string[]> {
  const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const client = await testClient(endpoint);
  try {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  } finally {
    client.destroy();
  }
}

async function launch(modulePath: string, port: number, directory: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // The test process's NODE_OPTIONS (--experimental-vm-modules) has no business in s3rver.
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      S3RVER_MODULE: modulePath,
      S3RVER_PORT: String(port),
      S3RVER_DIR: directory,
      S3RVER_BUCKET: BUCKET,
    },
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const lines = createInterface({ input: child.stdout! });
  try {
    const bound = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('s3rver did not start within 20 s')), 20_000);
      lines.once('line', (line) => {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { port: number }).port);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`s3rver exited with code ${code} before listening: ${stderr}`));
      });
    });
    // Afterwards an exit is a crash (stop() removes this first): say why, or tests only see ECONNREFUSED.
    child.on('exit', (code, signal) => process.stderr.write(`s3rver exited unexpectedly (${code ?? signal}): ${stderr}\n`));
    return { child, port: bound };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    lines.close();
  }
}

/** The S3_* settings that point a service (or a whole stack) at this test server. */
export function s3Env(s3: S3TestServer): Record<string, string> {
  return {
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
}
