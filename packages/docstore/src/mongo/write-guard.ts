// A guard around one defect of the MongoDB driver (seen in 6.22.0, still in 7.9.0): a command
// written to a connection whose socket is already destroyed, while the socket's 'close' event is
// still pending, waits for a 'drain' that never comes. Node's socket.write() then returns false
// without an 'error' event, and a destroyed socket ignores its timeout, so the command hangs
// forever and `socketTimeoutMS`/`connectTimeoutMS` do not end it.
//
// The window is short (a peer's FIN tears a socket down in one event-loop phase; its 'close' comes
// in a later one), but a server restart closes every connection at once: when a pool connection's
// 'close' is handled first, the failed operation's retry asks the server monitor for an immediate
// check, and the monitor writes its `hello` to its own socket, destroyed in that very window. With
// a polling monitor (a server without `topologyVersion`, our MongoDB-wire test server, or
// serverMonitoringMode 'poll') that check never ends, and the monitor never checks again: the
// server stays Unknown with the error of the failed operation ("connection N to host closed"),
// and every operation fails server selection for as long as the process lives.
//
// The guard ties a pending write to its socket's life: when the socket closes before the write
// completes, the write fails as a network error (the one the connection recorded for the close),
// so the monitor's check fails and its next one reconnects.
import { MongoNetworkError } from 'mongodb';

/** The driver's connection class, as far as the guard uses it (internal: not in its typings). */
interface DriverConnection {
  id: number | string;
  address: string;
  error?: Error | null;
  socket?: { closed?: boolean; once(event: 'close', listener: () => void): unknown; off(event: 'close', listener: () => void): unknown };
  writeCommand(command: unknown, options: unknown): Promise<void>;
}

const GUARDED = Symbol.for('@media/docstore:mongo-write-guard');
// A variable, so that TypeScript does not look for typings of the driver's internal module.
const CONNECTION_MODULE = 'mongodb/lib/cmap/connection.js';

let installed: Promise<boolean> | undefined;

/**
 * Installs the guard on the driver's connections (once per driver instance). Resolves false
 * when the driver's internals are not the expected ones (another driver version): the store
 * works as before, without the guard; the docstore tests fail on that.
 */
export function guardDestroyedSocketWrites(): Promise<boolean> {
  installed ??= install();
  return installed;
}

async function install(): Promise<boolean> {
  let proto: (DriverConnection & { [GUARDED]?: true }) | undefined;
  try {
    const mod = (await import(CONNECTION_MODULE)) as {
      Connection?: { prototype: DriverConnection };
      default?: { Connection?: { prototype: DriverConnection } };
    };
    proto = (mod.Connection ?? mod.default?.Connection)?.prototype;
  } catch {
    return false;
  }
  if (!proto || typeof proto.writeCommand !== 'function') return false;
  if (proto[GUARDED]) return true;
  const writeCommand = proto.writeCommand;
  proto.writeCommand = function guardedWriteCommand(this: DriverConnection, command: unknown, options: unknown): Promise<void> {
    const socket = this.socket;
    if (!socket) return writeCommand.call(this, command, options);
    const closed = () => this.error ?? new MongoNetworkError(`connection ${this.id} to ${this.address} closed`);
    if (socket.closed) return Promise.reject(closed());
    return new Promise<void>((resolve, reject) => {
      // Registered after the connection's own 'close' handler, which records the error first.
      const onClose = () => reject(closed());
      socket.once('close', onClose);
      writeCommand.call(this, command, options).then(
        (value) => {
          socket.off('close', onClose);
          resolve(value);
        },
        (err: unknown) => {
          socket.off('close', onClose);
          reject(err);
        },
      );
    });
  };
  proto[GUARDED] = true;
  return true;
}
