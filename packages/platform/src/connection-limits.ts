// Caps on the connections a client-facing HTTP listener holds open: per client address (each
// counted on its own) and in total, so that no client, with a key or without, can take the
// sockets (file descriptors) everyone else needs. A connection over a cap is not served: its
// first request is answered in the API's error shape (429 for one address, 503 for the total)
// and the connection closed; one that sends no request is closed after a short grace.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Errors, type DomainError } from './errors.js';

export interface ConnectionCaps {
  /** Open connections one remote address may hold; 0: no cap. */
  perAddress: number;
  /** Open connections in all; 0: no cap. */
  total: number;
  /** How long a connection over a cap may stay open to receive its answer (default 2 s). */
  graceMs?: number;
}

const OVER = Symbol('over-connection-cap');
type Marked = Socket & { [OVER]?: DomainError };

/** Counts the server's connections and marks those over a cap (see connectionRefusal). */
export function capConnections(server: Server, caps: ConnectionCaps): void {
  const byAddress = new Map<string, number>();
  let total = 0;
  const graceMs = caps.graceMs ?? 2000;
  server.on('connection', (socket: Marked) => {
    const address = socket.remoteAddress ?? '';
    const mine = (byAddress.get(address) ?? 0) + 1;
    byAddress.set(address, mine);
    total += 1;
    socket.once('close', () => {
      total -= 1;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left <= 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
    if (caps.perAddress > 0 && mine > caps.perAddress) socket[OVER] = Errors.tooManyConnectionsFromAddress(caps.perAddress);
    else if (caps.total > 0 && total > caps.total) socket[OVER] = Errors.tooManyConnections();
    if (socket[OVER]) {
      const timer = setTimeout(() => socket.destroy(), graceMs);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    }
  });
}

/** The refusal for a request on a connection over a cap; undefined when it may be served. */
export function connectionRefusal(socket: Socket): DomainError | undefined {
  return (socket as Marked)[OVER];
}
