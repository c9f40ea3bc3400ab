// What the cluster needs from the machine: Debian's nats-server and haproxy (both install to
// /usr/sbin, often not on a user's PATH), and free loopback ports.
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/** The Debian packages `npm run cluster` runs, by binary name. */
export const REQUIRED_BINARIES = { 'nats-server': 'nats-server', haproxy: 'haproxy' } as const;
export type RequiredBinary = keyof typeof REQUIRED_BINARIES;

/** Path of an executable named `name` on PATH or in the sbin folders, or undefined. */
export function findBinary(name: string): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const dir of [...dirs, '/usr/sbin', '/usr/local/sbin', '/usr/local/bin', '/sbin']) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The required binaries that are missing here, with the apt-get line that installs them. */
export function missingBinaries(): { missing: RequiredBinary[]; hint: string } {
  const missing = (Object.keys(REQUIRED_BINARIES) as RequiredBinary[]).filter((b) => findBinary(b) === undefined);
  return { missing, hint: `apt-get install -y ${missing.map((b) => REQUIRED_BINARIES[b]).join(' ')}` };
}

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
