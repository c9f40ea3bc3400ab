// s3rver for tests, in a child process: s3rver 3.7 encrypts list continuation tokens with DES,
// which Node 17+ only offers with --openssl-legacy-provider, and jest's own NODE_OPTIONS must
// not carry that flag. Loopback only; the child exits when the test process goes away.
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
server.run().then(
  (address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'),
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

async function listKeys(endpoint: string, prefix?: string): Promise<string[]> {
  const { S3Client, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: CREDENTIAL, secretAccessKey: CREDENTIAL },
  });
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
