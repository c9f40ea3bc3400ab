import { ConfigError } from './config.js';
import { DependencyStartError } from './start-errors.js';
import { startTracing, type Tracing } from './tracing.js';

export interface Stoppable {
  close(): Promise<void>;
}

/**
 * Runs a process entrypoint: configuration problems print one clear message and exit 1;
 * SIGINT/SIGTERM close everything once (a second signal exits at once). Traces are exported from
 * the start when an OTLP endpoint is configured, and the last ones sent before exiting.
 */
export function runMain(start: () => Promise<Stoppable>, name: string): void {
  let stopping = false;
  const started = async (): Promise<Stoppable> => {
    const tracing: Tracing | null = await startTracing(name);
    const running = await start();
    return {
      async close() {
        await running.close();
        await tracing?.shutdown();
      },
    };
  };
  started().then(
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
