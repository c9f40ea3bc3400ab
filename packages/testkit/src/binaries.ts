// Finding the system binaries tests and tools spawn (nats-server, haproxy): Debian puts them in
// /usr/sbin, often not on a user's PATH.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

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
