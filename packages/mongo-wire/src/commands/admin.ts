// Handshake and housekeeping commands the driver sends on its own.
import { Long } from 'bson';
import type { Handler } from './context.js';

export const VERSION = '7.0.0';

/** A standalone server: no setName (so no sessions in transactions, no retryable writes). */
const hello: Handler = (_cmd, ctx) => ({
  helloOk: true,
  ismaster: true,
  isWritablePrimary: true,
  maxBsonObjectSize: 16 * 1024 * 1024,
  maxMessageSizeBytes: 48_000_000,
  maxWriteBatchSize: 100_000,
  localTime: new Date(),
  logicalSessionTimeoutMinutes: 30,
  connectionId: ctx.connectionId,
  // As a real server: with it the driver's monitor streams (awaitable hello) instead of polling.
  topologyVersion: ctx.topologyVersion,
  minWireVersion: 0,
  maxWireVersion: 21, // MongoDB 7.0
  readOnly: false,
  ok: 1,
});

const buildInfo: Handler = () => ({
  version: VERSION,
  versionArray: [7, 0, 0, 0],
  gitVersion: 'mongo-wire',
  bits: 64,
  maxBsonObjectSize: 16 * 1024 * 1024,
  ok: 1,
});

export const adminCommands: Record<string, Handler> = {
  hello,
  isMaster: hello,
  ismaster: hello,
  ping: () => ({ ok: 1 }),
  buildInfo,
  buildinfo: buildInfo,
  // Sessions carry no state here: there are no transactions.
  endSessions: () => ({ ok: 1 }),
  connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
  serverStatus: (_cmd, ctx) => ({
    host: '127.0.0.1',
    version: VERSION,
    process: 'mongo-wire',
    uptime: Math.floor(process.uptime()),
    connections: { current: ctx.connectionId },
    localTime: new Date(),
    opcounters: { insert: Long.ZERO },
    ok: 1,
  }),
};
