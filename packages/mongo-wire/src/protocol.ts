// MongoDB wire framing: the 16-byte header, OP_MSG (all commands since 3.6) and OP_QUERY/OP_REPLY
// (still used by drivers for the first `hello` of a connection).
import { BSON, Long, type Document } from 'bson';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_COMPRESSED = 2012;
export const OP_MSG = 2013;

const CHECKSUM_PRESENT = 1;
const MORE_TO_COME = 2;
const EXHAUST_ALLOWED = 1 << 16;

export interface Header {
  length: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export type Request =
  | { kind: 'msg'; header: Header; command: Document; moreToCome: boolean; exhaustAllowed: boolean }
  | { kind: 'query'; header: Header; collection: string; command: Document };

export class ProtocolError extends Error {}

export function readHeader(buf: Buffer): Header {
  return { length: buf.readInt32LE(0), requestId: buf.readInt32LE(4), responseTo: buf.readInt32LE(8), opCode: buf.readInt32LE(12) };
}

function cstring(buf: Buffer, at: number): { value: string; next: number } {
  const end = buf.indexOf(0, at);
  if (end < 0) throw new ProtocolError('unterminated cstring');
  return { value: buf.toString('utf8', at, end), next: end + 1 };
}

function bsonAt(buf: Buffer, at: number): { doc: Document; next: number } {
  const size = buf.readInt32LE(at);
  if (size < 5 || at + size > buf.length) throw new ProtocolError('bad BSON document size');
  return { doc: BSON.deserialize(buf.subarray(at, at + size)), next: at + size };
}

/** Parses one complete message (header included). */
export function parseRequest(buf: Buffer): Request {
  const header = readHeader(buf);
  if (header.opCode === OP_MSG) {
    const flags = buf.readUInt32LE(16);
    // Bits 0-15 are required flags: an unknown one must make the server refuse the message.
    // exhaustAllowed (bit 16) is optional: the client may take several replies to one request.
    if ((flags & 0xffff & ~(CHECKSUM_PRESENT | MORE_TO_COME)) !== 0) throw new ProtocolError(`unsupported OP_MSG flags ${flags}`);
    const end = flags & CHECKSUM_PRESENT ? buf.length - 4 : buf.length;
    let at = 20;
    let command: Document | null = null;
    const sequences: Array<[string, Document[]]> = [];
    while (at < end) {
      const kind = buf.readUInt8(at);
      at += 1;
      if (kind === 0) {
        const { doc, next } = bsonAt(buf, at);
        command = doc;
        at = next;
      } else if (kind === 1) {
        const size = buf.readInt32LE(at);
        const stop = at + size;
        const id = cstring(buf, at + 4);
        const docs: Document[] = [];
        let p = id.next;
        while (p < stop) {
          const { doc, next } = bsonAt(buf, p);
          docs.push(doc);
          p = next;
        }
        sequences.push([id.value, docs]);
        at = stop;
      } else throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
    if (!command) throw new ProtocolError('OP_MSG without a body section');
    // Document sequences (e.g. insert's `documents`) belong to the body as arrays.
    for (const [id, docs] of sequences) command[id] = docs;
    return { kind: 'msg', header, command, moreToCome: (flags & MORE_TO_COME) !== 0, exhaustAllowed: (flags & EXHAUST_ALLOWED) !== 0 };
  }
  if (header.opCode === OP_QUERY) {
    const ns = cstring(buf, 20);
    const { doc } = bsonAt(buf, ns.next + 8); // skip numberToSkip, numberToReturn
    // Legacy wrapping: {$query: {...}, $readPreference: ...}.
    const command = doc.$query && typeof doc.$query === 'object' ? (doc.$query as Document) : doc;
    return { kind: 'query', header, collection: ns.value, command };
  }
  throw new ProtocolError(`unsupported opCode ${header.opCode}`);
}

let nextRequestId = 1;

function header(length: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(nextRequestId++ & 0x7fffffff, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

/** An OP_MSG reply; with moreToCome, the client keeps reading further replies to its request. */
export function encodeMsgReply(responseTo: number, body: Document, moreToCome = false): Buffer {
  const doc = BSON.serialize(body);
  const flagsAndKind = Buffer.alloc(5); // flags, then section kind 0
  flagsAndKind.writeUInt32LE(moreToCome ? MORE_TO_COME : 0, 0);
  return Buffer.concat([header(16 + 5 + doc.length, responseTo, OP_MSG), flagsAndKind, doc]);
}

export function encodeQueryReply(responseTo: number, body: Document): Buffer {
  const doc = BSON.serialize(body);
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(0, 0); // responseFlags
  const cursor = Long.ZERO;
  fields.writeInt32LE(cursor.low, 4);
  fields.writeInt32LE(cursor.high, 8);
  fields.writeInt32LE(0, 12); // startingFrom
  fields.writeInt32LE(1, 16); // numberReturned
  return Buffer.concat([header(16 + 20 + doc.length, responseTo, OP_REPLY), fields, doc]);
}
