// Waiting for a server on 127.0.0.1 to accept connections (nats-server, the image smoke's containers).
import { connect } from 'node:net';

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
