// Free loopback ports for servers that take an address, not port 0 (nats-server, the cluster's
// processes), and waiting for a server on 127.0.0.1 to accept connections.
import { connect, createServer } from 'node:net';

/** `count` distinct free ports (held together while chosen, so none is handed out twice). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const srv = createServer();
          srv.once('error', reject);
          srv.listen(0, '127.0.0.1', () => resolve(srv));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** True once a TCP connect to 127.0.0.1:port succeeds (the socket is closed at once). */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/**
 * Polls a TCP connect until it succeeds; throws naming `what` after `timeoutMs`, or the signal's
 * reason as soon as it is aborted (the server's process exited: no point waiting on).
 */
export async function waitForPort(port: number, timeoutMs: number, what: string, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    if (await acceptsConnections(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not accept connections on port ${port} within ${timeoutMs} ms`);
}
