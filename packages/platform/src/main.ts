import { ConfigError } from './config.js';
import { DependencyStartError } from './start-errors.js';

export interface Stoppable {
  close(): Promise<void>;
}

/**
 * Runs a process entrypoint: configuration problems print one clear message and exit 1;
 * SIGINT/SIGTERM close everything once (a second signal exits at once).
 */
export function runMain(start: () => Promise<Stoppable>, name: string): void {
  let stopping = false;
  start().then(
    (running) => {
      const stop = (signal: string) => {
        if (stopping) process.exit(1);
        stopping = true;
        process.stderr.write(`${name}: ${signal}, shutting down\n`);
        running.close().then(
          () => process.exit(0),
          (err) => {
            process.stderr.write(`${name}: error while shutting down: ${String(err)}\n`);
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    },
    (err) => {
      if (err instanceof ConfigError) process.stderr.write(`${name}: ${err.message}\n`);
      else process.stderr.write(`${name}: failed to start: ${startFailure(err)}\n`);
      process.exit(1);
    },
  );
}

/**
 * A system call's refusal (a port in use, a host that does not resolve, a directory not writable)
 * is the operator's to fix and says all in its message, as does a dependency refusing us at start
 * (DependencyStartError); anything else is ours, with its stack.
 */
export function startFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err instanceof DependencyStartError) return err.message;
  const sys = err as NodeJS.ErrnoException;
  if (typeof sys.code === 'string' && typeof sys.syscall === 'string') return err.message;
  return err.stack ?? err.message;
}
