// The TCP side: frames messages per connection, runs each command synchronously, replies. The
// one exception is the driver's monitor: an awaitable hello is answered after maxAwaitTimeMS,
// and again every maxAwaitTimeMS on the same request while the client allows exhaust replies,
// as a real server streams its topology to the driver.
import { createServer, type Server, type Socket } from 'node:net';
import { Long, ObjectId, type Document } from 'bson';
import { runCommand } from './commands/index.js';
import { Cursors } from './cursors.js';
import { CommandError, toErrorDocument } from './errors.js';
import { encodeMsgReply, encodeQueryReply, parseRequest, ProtocolError, type Request } from './protocol.js';
import { Storage } from './storage.js';

const MAX_MESSAGE = 48_000_000;
const HELLO = new Set(['hello', 'isMaster', 'ismaster']);

export interface WireServerOptions {
  port?: number;
  /** How often TTL indexes are applied (ms). Default 1000. */
  ttlIntervalMs?: number;
}

export class WireServer {
  readonly storage = new Storage();
  readonly cursors = new Cursors();
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly ttlIntervalMs: number;
  private ttlTimer: NodeJS.Timeout | undefined;
  private connections = 0;
  /** Replaced at every listen(): a restarted server is a new process to the driver. */
  private topologyVersion = { processId: new ObjectId(), counter: Long.ZERO };
  /** The pending awaitable hello of each monitoring connection. */
  private readonly awaiting = new Map<Socket, NodeJS.Timeout>();

  constructor(options: WireServerOptions = {}) {
    this.server = createServer((socket) => this.accept(socket));
    this.ttlIntervalMs = options.ttlIntervalMs ?? 1000;
  }

  /** Listens on 127.0.0.1; after stop() it may listen again, with the same data (fault tests). */
  listen(port: number): Promise<number> {
    this.topologyVersion = { processId: new ObjectId(), counter: Long.ZERO };
    if (!this.ttlTimer) {
      this.ttlTimer = setInterval(() => this.storage.expire(Date.now()), this.ttlIntervalMs);
      this.ttlTimer.unref();
    }
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        const addr = this.server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : port);
      });
    });
  }

  /** Closes the listener and every connection; the data stays in memory. */
  async stop(): Promise<void> {
    clearInterval(this.ttlTimer);
    this.ttlTimer = undefined;
    for (const s of this.sockets) s.destroy();
    this.cursors.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Runs one command document against a database; never throws. */
  execute(db: string, cmd: Document, connectionId = 0): Document {
    try {
      if (typeof db !== 'string' || db === '' || /[/\\. "$\0]/.test(db))
        throw new CommandError(73, `Invalid database name: '${String(db)}'`);
      return runCommand(cmd, { storage: this.storage, cursors: this.cursors, db, connectionId, topologyVersion: this.topologyVersion });
    } catch (err) {
      return toErrorDocument(err);
    }
  }

  private accept(socket: Socket): void {
    const connectionId = ++this.connections;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 4) {
        const length = pending.readInt32LE(0);
        if (length < 16 || length > MAX_MESSAGE) return void socket.destroy();
        if (pending.length < length) break;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        const reply = this.handle(message, connectionId, socket);
        if (reply) socket.write(reply);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.sockets.delete(socket);
      clearTimeout(this.awaiting.get(socket));
      this.awaiting.delete(socket);
    });
  }

  private handle(message: Buffer, connectionId: number, socket: Socket): Buffer | null {
    let request: Request;
    try {
      request = parseRequest(message);
    } catch (err) {
      // A message we cannot frame has no request id we could trust to answer: report and reply to it.
      const responseTo = message.readInt32LE(4);
      const body = {
        ok: 0,
        errmsg: (err as Error).message,
        code: err instanceof ProtocolError ? 9 : 1,
        codeName: err instanceof ProtocolError ? 'FailedToParse' : 'InternalError',
      };
      return encodeMsgReply(responseTo, body);
    }
    if (request.kind === 'query') {
      const [db, coll] = [
        request.collection.slice(0, request.collection.indexOf('.')),
        request.collection.slice(request.collection.indexOf('.') + 1),
      ];
      const body =
        coll === '$cmd'
          ? this.execute(db, request.command, connectionId)
          : { $err: 'OP_QUERY is only supported for commands', code: 352, ok: 0 };
      return encodeQueryReply(request.header.requestId, body);
    }
    const db = request.command.$db;
    if (this.isAwaitableHello(request.command)) {
      this.answerWhenDue(socket, request.header.requestId, request.command, request.exhaustAllowed, connectionId);
      return null;
    }
    const body = this.execute(typeof db === 'string' ? db : '', request.command, connectionId);
    return request.moreToCome ? null : encodeMsgReply(request.header.requestId, body);
  }

  private isAwaitableHello(cmd: Document): boolean {
    const name = Object.keys(cmd)[0];
    return name !== undefined && HELLO.has(name) && typeof cmd.topologyVersion === 'object' && cmd.maxAwaitTimeMS !== undefined;
  }

  /**
   * Answers an awaitable hello at once when the client's topology version is not this server's,
   * else after maxAwaitTimeMS (nothing changes here meanwhile); with exhaust allowed, the reply
   * says moreToCome and the next one follows maxAwaitTimeMS later, until the connection closes.
   */
  private answerWhenDue(socket: Socket, requestId: number, cmd: Document, exhaust: boolean, connectionId: number): void {
    const waitMs = Math.max(0, Number(cmd.maxAwaitTimeMS) || 0);
    const theirs = cmd.topologyVersion as { processId?: unknown; counter?: unknown };
    const ours = this.topologyVersion;
    const current =
      theirs.processId instanceof ObjectId &&
      theirs.processId.equals(ours.processId) &&
      Long.fromValue(theirs.counter as number).equals(ours.counter);
    const reply = () => {
      this.awaiting.delete(socket);
      if (socket.destroyed) return;
      socket.write(encodeMsgReply(requestId, this.execute('admin', { hello: 1 }, connectionId), exhaust));
      if (exhaust) this.awaiting.set(socket, setTimeout(reply, waitMs));
    };
    clearTimeout(this.awaiting.get(socket));
    this.awaiting.set(socket, setTimeout(reply, current ? waitMs : 0));
  }
}
