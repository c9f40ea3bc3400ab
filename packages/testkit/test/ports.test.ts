import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { jest } from '@jest/globals';
import { freePorts, stableRange } from '../src/ports.js';

describe('freePorts', () => {
  it('gives distinct ports outside the ephemeral range that a server can bind', async () => {
    const ports = await freePorts(40);
    expect(new Set(ports).size).toBe(40);
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];
    for (const port of ports) expect(port < low || port > high).toBe(true);
    const srv = createServer();
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(ports[0], '127.0.0.1', resolve);
    });
    await new Promise((r) => srv.close(r));
  });

  it('skips a port that is taken', async () => {
    const [first, end] = stableRange();
    // The first draw lands on a port another server holds.
    const spy = jest.spyOn(Math, 'random');
    const holders = [] as ReturnType<typeof createServer>[];
    try {
      const [taken] = await freePorts(1);
      const holder = createServer();
      await new Promise<void>((resolve) => holder.listen(taken, '127.0.0.1', resolve));
      holders.push(holder);
      const at = (p: number) => (p - first + 0.5) / (end - first);
      spy.mockReturnValueOnce(at(taken!)).mockReturnValueOnce(at(taken! + 1 < end ? taken! + 1 : taken! - 1));
      const [got] = await freePorts(1);
      expect(got).not.toBe(taken);
      expect(Math.abs(got! - taken!)).toBe(1);
    } finally {
      spy.mockRestore();
      await Promise.all(holders.map((h) => new Promise((r) => h.close(r))));
    }
  });
});
