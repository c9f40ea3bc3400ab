// Raw wire protocol: framing, the legacy OP_QUERY handshake, error documents, moreToCome.
import { jest } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { BSON, ObjectId, type Document } from 'bson';
import { startMongoWireServer, type RunningWireServer } from '../src/index.js';
import { OP_MSG, OP_QUERY, OP_REPLY } from '../src/protocol.js';

let server: RunningWireServer;
let socket: Socket;
let requestId = 100;

beforeAll(async () => {
  server = await startMongoWireServer();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  socket = connect(server.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
});
afterEach(() => {
  socket.destroy();
});

function frame(opCode: number, body: Buffer): { id: number; bytes: Buffer } {
  const id = ++requestId;
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + body.length, 0);
  header.writeInt32LE(id, 4);
  header.writeInt32LE(0, 8);
  header.writeInt32LE(opCode, 12);
  return { id, bytes: Buffer.concat([header, body]) };
}

function opMsg(command: Document, flags = 0): { id: number; bytes: Buffer } {
  const f = Buffer.alloc(4);
  f.writeUInt32LE(flags, 0);
  return frame(OP_MSG, Buffer.concat([f, Buffer.from([0]), BSON.serialize(command)]));
}

/** Reads one reply; returns its header fields and body document. */
function readReply(): Promise<{ responseTo: number; opCode: number; body: Document }> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 4 || buf.length < buf.readInt32LE(0)) return;
      socket.off('data', onData);
      const opCode = buf.readInt32LE(12);
      const bodyAt = opCode === OP_REPLY ? 36 : 21;
      resolve({ responseTo: buf.readInt32LE(8), opCode, body: BSON.deserialize(buf.subarray(bodyAt, buf.readInt32LE(0))) });
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

async function roundTrip(command: Document): Promise<Document> {
  const { id, bytes } = opMsg(command);
  const reply = readReply();
  socket.write(bytes);
  const r = await reply;
  expect(r.responseTo).toBe(id);
  expect(r.opCode).toBe(OP_MSG);
  return r.body;
}

it('answers an unknown command with a CommandNotFound error document', async () => {
  expect(await roundTrip({ frobnicate: 1, $db: 'test' })).toEqual({
    ok: 0,
    errmsg: "no such command: 'frobnicate'",
    code: 59,
    codeName: 'CommandNotFound',
  });
});

it('answers unsupported features with NotImplemented rather than wrong results', async () => {
  const r = await roundTrip({
    aggregate: 'c',
    pipeline: [{ $lookup: { from: 'x', localField: 'a', foreignField: 'b', as: 'y' } }],
    cursor: {},
    $db: 'test',
  });
  expect(r).toMatchObject({ ok: 0, code: 238, codeName: 'NotImplemented' });
  expect(r.errmsg).toMatch(/\$lookup/);
  const u = await roundTrip({ update: 'c', updates: [{ q: {}, u: [{ $set: { a: 1 } }], upsert: true }], $db: 'test' });
  expect(u.ok).toBe(1);
  expect(u.writeErrors[0]).toMatchObject({ index: 0, code: 238 });
});

it('answers the legacy OP_QUERY hello with an OP_REPLY', async () => {
  const query = Buffer.concat([
    Buffer.alloc(4), // flags
    Buffer.from('admin.$cmd\0'),
    Buffer.from([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]), // skip 0, return -1
    BSON.serialize({ isMaster: 1, helloOk: true, client: { driver: { name: 'raw' } } }),
  ]);
  const { id, bytes } = frame(OP_QUERY, query);
  const reply = readReply();
  socket.write(bytes);
  const r = await reply;
  expect(r.opCode).toBe(OP_REPLY);
  expect(r.responseTo).toBe(id);
  expect(r.body).toMatchObject({ ok: 1, ismaster: true, isWritablePrimary: true, maxWireVersion: 21, helloOk: true });
});

it('takes document sequences (kind 1 sections) as command arrays', async () => {
  const seq = Buffer.concat([Buffer.from('documents\0'), BSON.serialize({ _id: 1 }), BSON.serialize({ _id: 2 })]);
  const size = Buffer.alloc(4);
  size.writeInt32LE(4 + seq.length, 0);
  const body = Buffer.concat([
    Buffer.alloc(4),
    Buffer.from([0]),
    BSON.serialize({ insert: 'seq', $db: 'proto' }),
    Buffer.from([1]),
    size,
    seq,
  ]);
  const { bytes } = frame(OP_MSG, body);
  const reply = readReply();
  socket.write(bytes);
  expect((await reply).body).toEqual({ n: 2, ok: 1 });
  const found = await roundTrip({ find: 'seq', filter: {}, $db: 'proto' });
  expect(found.cursor.firstBatch).toEqual([{ _id: 1 }, { _id: 2 }]);
});

it('does not reply to moreToCome (unacknowledged) messages but applies them', async () => {
  socket.write(opMsg({ insert: 'quiet', documents: [{ _id: 'q' }], $db: 'proto' }, 2).bytes);
  const r = await roundTrip({ count: 'quiet', query: {}, $db: 'proto' });
  expect(r).toEqual({ n: 1, ok: 1 });
});

it('handles messages split across TCP packets and several in one packet', async () => {
  const a = opMsg({ ping: 1, $db: 'admin' });
  const b = opMsg({ ping: 1, $db: 'admin' });
  const all = Buffer.concat([a.bytes, b.bytes]);
  const replies: number[] = [];
  const done = new Promise<void>((resolve) => {
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
        replies.push(buf.readInt32LE(8));
        buf = buf.subarray(buf.readInt32LE(0));
      }
      if (replies.length === 2) resolve();
    });
  });
  socket.write(all.subarray(0, 7));
  // The server has read those 7 bytes alone once it answered a ping sent after them on another connection.
  const other = connect(server.port, '127.0.0.1');
  try {
    await new Promise<void>((resolve, reject) => other.once('connect', resolve).once('error', reject));
    const answered = new Promise((resolve) => other.once('data', resolve));
    other.write(opMsg({ ping: 1, $db: 'admin' }).bytes);
    await answered;
  } finally {
    other.destroy();
  }
  socket.write(all.subarray(7));
  await done;
  expect(replies).toEqual([a.id, b.id]);
});

it('rejects a command without $db as an invalid namespace', async () => {
  expect(await roundTrip({ ping: 1 })).toMatchObject({ ok: 0, code: 73 });
});

it('streams an awaitable hello as a real server does: after maxAwaitTimeMS, again with moreToCome', async () => {
  const first = await roundTrip({ hello: 1, $db: 'admin' });
  expect(first.topologyVersion).toEqual({ processId: expect.anything(), counter: expect.anything() });
  // Another topology version: answered at once, without moreToCome (exhaust not allowed).
  const stale = await roundTrip({
    hello: 1,
    $db: 'admin',
    topologyVersion: { processId: new ObjectId(), counter: 0 },
    maxAwaitTimeMS: 60_000,
  });
  expect(stale.isWritablePrimary).toBe(true);
  // The current one, exhaust allowed: a reply each time the wait is over, flagged moreToCome.
  // On fake timers: each reply must wait for 100 ms of the server's clock, moved here by hand.
  jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
  try {
    const flags: number[] = [];
    /** The fake clock's reading when each reply came. */
    const sentAt: number[] = [];
    let onReply = () => {};
    socket.on(
      'data',
      (() => {
        let buf = Buffer.alloc(0);
        return (chunk: Buffer) => {
          buf = Buffer.concat([buf, chunk]);
          while (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
            flags.push(buf.readUInt32LE(16));
            sentAt.push(jest.now());
            buf = buf.subarray(buf.readInt32LE(0));
            onReply();
          }
        };
      })(),
    );
    const EXHAUST_ALLOWED = 1 << 16;
    const timers = jest.getTimerCount();
    socket.write(opMsg({ hello: 1, $db: 'admin', topologyVersion: first.topologyVersion, maxAwaitTimeMS: 100 }, EXHAUST_ALLOWED).bytes);
    // Received once the server has set the timer of its answer.
    while (jest.getTimerCount() === timers) await new Promise((r) => setImmediate(r));
    const start = jest.now();
    for (let i = 1; i <= 3; i++) {
      const came = new Promise<void>((resolve) => (onReply = resolve));
      jest.advanceTimersByTime(100);
      await came;
    }
    expect(sentAt.map((t) => t - start)).toEqual([100, 200, 300]); // three waits of 100 ms, none early
    expect(flags).toEqual([2, 2, 2]); // moreToCome
  } finally {
    jest.useRealTimers();
  }
});
