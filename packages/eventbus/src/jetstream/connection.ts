// Tracks whether the NATS connection is up, so publish can wait briefly for a reconnect and then
// fail, instead of queueing into the client's reconnect buffer (and being sent after it rejected).
import type { NatsConnection } from '@nats-io/nats-core';

export class ConnectionWatch {
  private connected = true;
  private closed = false;
  private readonly waiters = new Set<() => void>();

  constructor(nc: NatsConnection) {
    void this.watch(nc);
    void nc.closed().then(() => this.markClosed());
  }

  /** Resolves once connected; rejects after timeoutMs while disconnected, or if the connection closed. */
  async waitConnected(timeoutMs: number): Promise<void> {
    if (this.closed) throw new Error('NATS connection is closed');
    if (this.connected) return;
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        if (this.closed) reject(new Error('NATS connection is closed'));
        else resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`NATS is disconnected (no reconnect within ${timeoutMs} ms)`));
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') this.connected = false;
      else if (s.type === 'reconnect') {
        this.connected = true;
        this.wakeAll();
      }
    }
    this.markClosed(); // the status iterator ends when the connection closes
  }

  private markClosed(): void {
    this.closed = true;
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
