// A TCP proxy on loopback in front of a test server, for fault tests: freeze() keeps every
// connection open but relays nothing (a paused or black-holed server) until thaw(); cut() drops
// every connection and refuses new ones (a server gone) until restore() listens on the same port.
// refuse() is cut() with the port kept: each new connection is reset at once and counted, so a test
// can wait for a call to have met the outage. `held` and `refused` count what a test waits on.
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  freeze(): void;
  thaw(): void;
  cut(): Promise<void>;
  refuse(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
  /** Chunks held since freeze() (a call on the wire, unanswered), until thaw() lets them through. */
  readonly held: number;
  /** Connections reset since refuse(), until restore(). */
  readonly refused: number;
}

export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  let server: Server | undefined;
  let frozen = false;
  const held: (() => void)[] = [];
  let refusing = false;
  let refused = 0;
  const sockets = new Set<Socket>();

  const relay = (from: Socket, to: Socket) => {
    sockets.add(from);
    const pass = (step: () => void) => (frozen ? held.push(step) : step());
    from.on('data', (chunk) => {
      if (!frozen) return void to.write(chunk);
      from.pause(); // held, as an unread socket buffer would be
      held.push(() => {
        to.write(chunk);
        from.resume();
      });
    });
    // Like pipe(): a clean close is passed on as one, after what was written (a reset as a reset).
    from.on('end', () => pass(() => to.end()));
    from.on('error', () => to.destroy());
  };

  const listen = (at: number) =>
    new Promise<number>((resolve, reject) => {
      const s = createServer((client) => {
        if (refusing) {
          refused++;
          return void client.resetAndDestroy();
        }
        const upstream = connect(port, host);
        relay(client, upstream);
        relay(upstream, client);
      });
      s.once('error', reject);
      s.listen(at, '127.0.0.1', () => resolve((s.address() as AddressInfo).port));
      server = s;
    });

  const cut = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise((resolve) => s.close(resolve));
  };

  const own = await listen(0);
  const refuse = async () => {
    await cut();
    refused = 0;
    refusing = true;
    await listen(own);
  };
  const restore = async () => {
    if (refusing) await cut();
    refusing = false;
    await listen(own);
  };
  return {
    port: own,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const go of held.splice(0)) go();
    },
    cut,
    refuse,
    restore,
    close: cut,
    get held() {
      return held.length;
    },
    get refused() {
      return refused;
    },
  };
}
