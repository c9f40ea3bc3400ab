// What the cluster needs from the machine: Debian's nats-server and haproxy (both install to
// /usr/sbin, often not on a user's PATH; testkit's findBinary looks there).
import { findBinary } from '@media/testkit';

/** The Debian packages `npm run cluster` runs, by binary name. */
export const REQUIRED_BINARIES = { 'nats-server': 'nats-server', haproxy: 'haproxy' } as const;
export type RequiredBinary = keyof typeof REQUIRED_BINARIES;

/** The required binaries that are missing here, with the apt-get line that installs them. */
export function missingBinaries(): { missing: RequiredBinary[]; hint: string } {
  const missing = (Object.keys(REQUIRED_BINARIES) as RequiredBinary[]).filter((b) => findBinary(b) === undefined);
  return { missing, hint: `apt-get install -y ${missing.map((b) => REQUIRED_BINARIES[b]).join(' ')}` };
}
