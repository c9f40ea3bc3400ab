// Free loopback ports for servers that take an address, not port 0 (nats-server, the cluster's
// processes), and waiting for a server on 127.0.0.1 to accept connections.
import { readFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';

/**
 * `count` distinct free ports, chosen below the kernel's ephemeral range: a port handed out by
 * `listen(0)` or taken as an outgoing connection's source port comes from that range, so one chosen
 * here cannot be taken by another test between the check and the server's own bind (CI once lost
 * haproxy's bind that way). Each candidate is bound while the others are chosen, so none repeats.
 */
export async function freePorts(count: number): Promise<number[]> {
  const [low, high] = stableRange();
  const held: Server[] = [];
  const tried = new Set<number>();
  try {
    while (held.length < count) {
      if (tried.size >= high - low) throw new Error(`no ${count} free ports between ${low} and ${high}`);
      const port = low + Math.floor(Math.random() * (high - low));
      if (tried.has(port)) continue;
      tried.add(port);
      const srv = await bindOrNull(port);
      if (srv) held.push(srv);
    }
    return held.map((s) => (s.address() as AddressInfo).port);
  } finally {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
}

/** [first, end) of ports outside the ephemeral range (Linux's ip_local_port_range; 32768-60999 elsewhere). */
export function stableRange(): [number, number] {
  let [low, high] = [32768, 60999];
  try {
    [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];
  } catch {
    // Not Linux: macOS's dynamic range starts at 49152, so 10000-32767 stays clear of it too.
  }
  if (low - 10000 >= 1000) return [10000, low];
  if (65535 - high >= 1000) return [high + 1, 65536];
  return [1024, 65536]; // The whole range is ephemeral here: nothing is safe from it.
}

function bindOrNull(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(null));
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
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
