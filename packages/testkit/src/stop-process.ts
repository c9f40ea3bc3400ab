// Stopping a child the way an orchestrator does: SIGTERM, then SIGKILL after a grace period.
import type { ChildProcess } from 'node:child_process';

export interface StopOptions {
  /** How long SIGTERM has before SIGKILL. */
  graceMs: number;
  /** Signal the child's whole process group (it was spawned `detached`), not just the child. */
  group?: boolean;
}

/** Resolves once the child has exited (at once if it already had). */
export async function stopProcess(child: ChildProcess, { graceMs, group = false }: StopOptions): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      if (group) process.kill(-child.pid!, sig);
      else child.kill(sig);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const grace = setTimeout(() => signal('SIGKILL'), graceMs);
  await exited;
  clearTimeout(grace);
}
