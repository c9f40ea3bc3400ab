// Every service as a third-party gRPC client sees it (issue 45): @grpc/grpc-js over plain HTTP/2
// with stubs from the .proto files, not the project's Connect transport. One representative RPC
// per service (unary, client streaming, server streaming), grpc.health.v1, status codes and
// messages as the Connect side sends them, request ids and caller credentials in metadata, a
// deadline the server honours, and reflection good enough to build a client from nothing.
import { execa } from 'execa';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { ConnectError } from '@connectrpc/connect';
import { JobsService } from '@media/proto/media/jobs/v1/jobs_pb.js';
import { type CallerIdentity, CALLER_HEADER, CALLER_TOKEN_HEADER, createServiceClient, REQUEST_ID_HEADER } from '@media/platform';
import { startTestStack, type TestStack } from '@media/stack/testing';
import { connect, grpc, loadFromDescriptors, loadFromProtoFiles, unary } from './stock-client.js';

let stack: TestStack;
let account: Awaited<ReturnType<TestStack['newAccount']>>;
const stubs = loadFromProtoFiles();
const SERVICES = {
  auth: 'media.auth.v1.AuthService',
  storage: 'media.storage.v1.StorageService',
  jobs: 'media.jobs.v1.JobsService',
  probe: 'media.probe.v1.ProbeService',
  billing: 'media.billing.v1.BillingService',
} as const;
type Name = keyof typeof SERVICES;
const NAMES = Object.keys(SERVICES) as Name[];

beforeAll(async () => {
  stack = await startTestStack();
  account = await stack.newAccount();
}, 60_000);
afterAll(() => stack?.close());

const client = (name: Name, service: string = SERVICES[name]) => connect(stubs, service, stack.urls[name]);
/** Metadata naming `identity` with its credential, as every internal caller sends it. */
function as(identity: CallerIdentity, extra: Record<string, string> = {}): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set(CALLER_HEADER, identity);
  m.set(CALLER_TOKEN_HEADER, stack.internalToken(identity));
  for (const [k, v] of Object.entries(extra)) m.set(k, v);
  return m;
}

describe('grpc.health.v1 over plain gRPC', () => {
  it.each(NAMES)('%s answers SERVING for the server and its service, NOT_FOUND for a name it does not serve', async (name) => {
    const health = client(name, 'grpc.health.v1.Health');
    try {
      expect((await unary(health, 'check', { service: '' })).value).toEqual({ status: 'SERVING' });
      expect((await unary(health, 'check', { service: SERVICES[name] })).value).toEqual({ status: 'SERVING' });
      const unknown = await unary(health, 'check', { service: 'no.such.Service' });
      expect(unknown.error?.code).toBe(grpc.status.NOT_FOUND);
    } finally {
      health.close();
    }
  });
});

describe('one RPC per service, called as its real caller would', () => {
  it('Auth: Authenticate returns the key of a valid Authorization', async () => {
    const auth = client('auth');
    const { value, error } = await unary(auth, 'authenticate', { authorization: account.authorization }, as('gateway'));
    auth.close();
    expect(error).toBeUndefined();
    expect(value).toMatchObject({ accountId: account.accountId, keyId: account.keyId });
  });

  it('Storage: a file stored by client streaming reads back by server streaming, byte for byte', async () => {
    const storage = client('storage');
    try {
      const dir = await unary(storage, 'createDirectory', { accountId: account.accountId }, as('gateway'));
      expect(dir.error).toBeUndefined();
      const dirId: string = dir.value.directory.id;
      const body = Buffer.from('grpc interop '.repeat(5000));
      const stored = await new Promise<{ error: grpc.ServiceError | null; value: any }>((resolve) => {
        const call = storage.storeFile(as('jobs'), (error: grpc.ServiceError | null, value: any) => resolve({ error, value }));
        call.write({ header: { accountId: account.accountId, dirId, fileName: 'note.txt', size: String(body.length) } });
        for (let i = 0; i < body.length; i += 16_384) call.write({ chunk: body.subarray(i, i + 16_384) });
        call.end();
      });
      expect(stored.error).toBeNull();
      expect(stored.value.file).toMatchObject({ fileName: 'note.txt', uploaded: true });

      const chunks: Buffer[] = [];
      const read = storage.readFile({ file: { accountId: account.accountId, dirId, fileName: 'note.txt' } }, as('probe'));
      for await (const msg of read) chunks.push(msg.chunk);
      expect(Buffer.concat(chunks).equals(body)).toBe(true);
    } finally {
      storage.close();
    }
  });

  it("Jobs: ListJobs answers the account's (empty) list", async () => {
    const jobs = client('jobs');
    const { value, error } = await unary(jobs, 'listJobs', { accountId: account.accountId, limit: 10 }, as('gateway'));
    jobs.close();
    expect(error).toBeUndefined();
    expect(value.jobs).toEqual([]);
  });

  it('Probe: Analyze probes a stored file', async () => {
    const storage = client('storage');
    const probe = client('probe');
    try {
      const dir = await unary(storage, 'createDirectory', { accountId: account.accountId }, as('gateway'));
      const dirId: string = dir.value.directory.id;
      const { stdout } = await execa(
        'ffmpeg',
        ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=5', '-f', 'matroska', '-'],
        {
          encoding: 'buffer',
        },
      );
      await new Promise<void>((resolve, reject) => {
        const call = storage.storeFile(as('jobs'), (error: grpc.ServiceError | null) => (error ? reject(error) : resolve()));
        call.write({ header: { accountId: account.accountId, dirId, fileName: 'clip.mkv', size: String(stdout.length) } });
        call.write({ chunk: Buffer.from(stdout) });
        call.end();
      });
      const analyzed = await unary(
        probe,
        'analyze',
        {
          accountId: account.accountId,
          keyId: account.keyId,
          filePath: `${dirId}/clip.mkv`,
          probe: { sections: { streams: { entries: [] } } },
        },
        as('gateway'),
      );
      expect(analyzed.error).toBeUndefined();
      expect(JSON.parse(analyzed.value.resultJson).streams[0]).toMatchObject({ codec_type: 'video', width: 64, height: 48 });
    } finally {
      storage.close();
      probe.close();
    }
  });

  it('Billing: GetQuota answers the month of a fresh account', async () => {
    const fresh = await stack.newAccount();
    const billing = client('billing');
    const { value, error } = await unary(billing, 'getQuota', { accountId: fresh.accountId }, as('gateway'));
    billing.close();
    expect(error).toBeUndefined();
    expect(value).toMatchObject({ usedGbSec: 0, yearMonth: expect.stringMatching(/^\d{4}-\d{2}$/) });
  });
});

describe('errors, metadata and deadlines', () => {
  it('answers an error with the code and message the Connect side sends', async () => {
    const connectJobs = createServiceClient(JobsService, stack.urls.jobs, { interceptors: stack.callAs('gateway') });
    const stock = client('jobs');
    try {
      const request = { accountId: account.accountId, jobId: 'job_doesnotexist0000' };
      const viaConnect = await connectJobs.client.getJob(request).then(
        () => undefined,
        (err: unknown) => ConnectError.from(err),
      );
      const viaGrpc = await unary(stock, 'getJob', request, as('gateway'));
      expect(viaConnect).toBeDefined();
      expect(viaGrpc.error?.code).toBe(viaConnect!.code);
      expect(viaGrpc.error?.details).toBe(viaConnect!.rawMessage);
    } finally {
      connectJobs.close();
      stock.close();
    }
  });

  it('refuses a call without the caller credential (UNAUTHENTICATED) and one from a caller the table does not list (PERMISSION_DENIED)', async () => {
    const jobs = client('jobs');
    try {
      const none = await unary(jobs, 'listJobs', { accountId: account.accountId });
      expect(none.error?.code).toBe(grpc.status.UNAUTHENTICATED);
      const wrong = await unary(jobs, 'listJobs', { accountId: account.accountId }, as('probe'));
      expect(wrong.error?.code).toBe(grpc.status.PERMISSION_DENIED);
    } finally {
      jobs.close();
    }
  });

  it('answers the request id it was sent, and one of its own when none was', async () => {
    const billing = client('billing');
    try {
      const sent = await unary(
        billing,
        'getQuota',
        { accountId: account.accountId },
        as('gateway', { [REQUEST_ID_HEADER]: 'req_interop_1' }),
      );
      expect(sent.metadata.get(REQUEST_ID_HEADER)).toEqual(['req_interop_1']);
      const refused = await unary(
        billing,
        'getQuota',
        { accountId: account.accountId },
        as('probe', { [REQUEST_ID_HEADER]: 'req_interop_2' }),
      );
      expect(refused.error?.metadata.get(REQUEST_ID_HEADER)).toEqual(['req_interop_2']);
      const own = await unary(billing, 'getQuota', { accountId: account.accountId }, as('gateway'));
      expect(own.metadata.get(REQUEST_ID_HEADER)).toEqual([expect.stringMatching(/^rpc_/)]);
    } finally {
      billing.close();
    }
  });

  it('ends a call at the deadline the client set, and the service stops the work', async () => {
    const jobs = client('jobs');
    try {
      // A run that would take minutes (20 s of input scaled to 1080p at x264's slowest preset),
      // stopped by the 2 s deadline long before it ends.
      const storage = client('storage');
      const dir = await unary(storage, 'createDirectory', { accountId: account.accountId }, as('gateway'));
      const dirId: string = dir.value.directory.id;
      const { stdout } = await execa(
        'ffmpeg',
        [
          '-v',
          'error',
          '-f',
          'lavfi',
          '-i',
          'testsrc2=duration=20:size=320x180:rate=25',
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-f',
          'matroska',
          '-',
        ],
        { encoding: 'buffer' },
      );
      await new Promise<void>((resolve, reject) => {
        const call = storage.storeFile(as('jobs'), (error: grpc.ServiceError | null) => (error ? reject(error) : resolve()));
        call.write({ header: { accountId: account.accountId, dirId, fileName: 'long.mkv', size: String(stdout.length) } });
        for (let i = 0; i < stdout.length; i += 65_536) call.write({ chunk: Buffer.from(stdout.subarray(i, i + 65_536)) });
        call.end();
      });
      storage.close();
      const task = {
        inputs: [{ filePath: `${dirId}/long.mkv` }],
        outputs: [{ file: 'slow.mp4', options: ['-vf', 'scale=1920:1080', '-c:v', 'libx264', '-preset', 'veryslow'] }],
      };
      const answer = await unary(jobs, 'processSync', { accountId: account.accountId, keyId: account.keyId, task }, as('gateway'), {
        deadline: Date.now() + 2000,
      });
      expect(answer.error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
      // The service saw the deadline go by: the run ends as failed, not completed, with no charge.
      const deadline = Date.now() + 30_000;
      let job: any;
      for (;;) {
        const listed = await unary(jobs, 'listJobs', { accountId: account.accountId, limit: 1 }, as('gateway'));
        job = listed.value?.jobs?.[0];
        if (job && !['JOB_STATUS_PENDING', 'JOB_STATUS_PROCESSING'].includes(job.status)) break;
        if (Date.now() > deadline) throw new Error(`the run is still ${job?.status} 30 s after its caller's deadline`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(job.status).not.toBe('JOB_STATUS_COMPLETED');
    } finally {
      jobs.close();
    }
  }, 60_000);
});

describe('server reflection (grpc.reflection.v1)', () => {
  /** One request on a reflection stream of `name`'s server, its answer. */
  async function reflect(name: Name, request: object): Promise<any> {
    const r = client(name, 'grpc.reflection.v1.ServerReflection');
    try {
      const call = r.serverReflectionInfo(as('gateway'));
      const answer = new Promise<any>((resolve, reject) => {
        call.once('data', resolve);
        call.once('error', reject);
      });
      call.write(request);
      const value = await answer;
      call.end();
      return value;
    } finally {
      r.close();
    }
  }

  it.each(NAMES)('%s lists its service, health and reflection', async (name) => {
    const answer = await reflect(name, { listServices: '*' });
    const names = answer.listServicesResponse.service.map((s: { name: string }) => s.name);
    expect(names).toEqual(expect.arrayContaining([SERVICES[name], 'grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection']));
  });

  it('answers the file of a symbol with its imports, enough to call the service without the .proto files', async () => {
    const answer = await reflect('billing', { fileContainingSymbol: 'media.billing.v1.BillingService' });
    const files: Uint8Array[] = answer.fileDescriptorResponse.fileDescriptorProto;
    const names = files.map((f) => fromBinary(FileDescriptorProtoSchema, f).name);
    expect(names[0]).toBe('media/billing/v1/billing.proto');
    // Every import a client needs to decode the messages is there too.
    for (const f of files) for (const dep of fromBinary(FileDescriptorProtoSchema, f).dependency) expect(names).toContain(dep);

    // Built from descriptors, the stubs keep the .proto's field names, as grpcurl shows them.
    const fromReflection = loadFromDescriptors(files);
    const billing = connect(fromReflection, SERVICES.billing, stack.urls.billing);
    const { value, error } = await unary(billing, 'getQuota', { account_id: account.accountId }, as('gateway'));
    billing.close();
    expect(error).toBeUndefined();
    expect(value.year_month).toMatch(/^\d{4}-\d{2}$/);
  });

  it('finds a method by its full name, answers NOT_FOUND for an unknown symbol, and needs a caller credential', async () => {
    const byMethod = await reflect('jobs', { fileContainingSymbol: 'media.jobs.v1.JobsService.GetJob' });
    expect(fromBinary(FileDescriptorProtoSchema, byMethod.fileDescriptorResponse.fileDescriptorProto[0]).name).toBe(
      'media/jobs/v1/jobs.proto',
    );
    const unknown = await reflect('jobs', { fileContainingSymbol: 'media.jobs.v1.NoSuchThing' });
    expect(unknown.errorResponse.errorCode).toBe(grpc.status.NOT_FOUND);

    const r = client('jobs', 'grpc.reflection.v1.ServerReflection');
    const call = r.serverReflectionInfo(new grpc.Metadata());
    const refused = new Promise<grpc.ServiceError>((resolve) => call.once('error', resolve));
    call.on('data', () => undefined);
    call.write({ listServices: '*' });
    expect((await refused).code).toBe(grpc.status.UNAUTHENTICATED);
    r.close();
  });
});
