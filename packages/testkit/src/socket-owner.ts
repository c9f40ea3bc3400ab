// Which process opened an accepted loopback connection (Linux /proc). Test processes run side by
// side (jest workers, other suites): a client elsewhere that retries a port of a server it lost
// (a stopped MongoDB or NATS test server) can reach a canary the OS has since given that port.
// That client is not the code under test; the code under test is this process or a child of it
// (ffmpeg, ffprobe, a spawned service), and every connection from those must still count.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { statFieldsAfterComm } from './proc-stat.js';

/**
 * True only when the connection's client end is found, open, in a process that is neither this
 * one nor a descendant of it. Anything not known for sure (no /proc, the client already closed)
 * is false, so a canary counts it.
 */
export function fromUnrelatedProcess(clientPort: number, serverPort: number): boolean {
  const inode = clientSocketInode(clientPort, serverPort);
  if (inode === undefined) return false;
  const owner = ownerOf(inode);
  return owner !== undefined && !isSelfOrDescendant(owner);
}

/** The inode of the socket bound to clientPort and connected to serverPort, from /proc/net/tcp{,6}. */
function clientSocketInode(clientPort: number, serverPort: number): string | undefined {
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      if (portOf(f[1]!) === clientPort && portOf(f[2]!) === serverPort && f[9] !== '0') return f[9];
    }
  }
  return undefined;
}

const portOf = (address: string): number => parseInt(address.slice(address.indexOf(':') + 1), 16);

function ownerOf(inode: string): number | undefined {
  const link = `socket:[${inode}]`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${entry}/fd/${fd}`) === link) return Number(entry);
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

function isSelfOrDescendant(pid: number): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
    if (p === process.pid) return true;
    try {
      p = Number(statFieldsAfterComm(readFileSync(`/proc/${p}/stat`, 'utf8'))[1]);
    } catch {
      return false;
    }
  }
  return false;
}
