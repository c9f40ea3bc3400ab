// Shared reading of how a sandboxed run ended.
import { realpath } from 'node:fs/promises';
import { constants } from 'node:os';
import { Errors } from '@media/platform';
import { sanitizeDetail } from './sanitize.js';
import type { SandboxExit } from './sandbox.js';

/** The exit code to report: the real one, or 128 + signal number as a shell would show it. */
export function exitCodeOf(exit: SandboxExit): number {
  if (exit.exitCode !== undefined) return exit.exitCode;
  const num = exit.signal ? constants.signals[exit.signal as keyof typeof constants.signals] : undefined;
  return 128 + (num ?? 0);
}

/** The short, sanitized detail for an error text. */
export function failureDetail(exit: SandboxExit, tool: string, workDirs: string[]): string {
  const fallback = exit.signal ? `${tool} was terminated by ${exit.signal}` : `${tool} gave no error message`;
  return sanitizeDetail(exit.stderr, { workDirs, fallback });
}

/**
 * Errors every run shares: our own kill (its reason: timeout, abort, a limit), and the kernel's
 * CPU-time backstop, which is a timeout too.
 */
export function commonFailure(exit: SandboxExit): unknown {
  if (exit.killReason !== undefined) return exit.killReason;
  if (exit.signal === 'SIGXCPU') return Errors.timedOut();
  return undefined;
}

/** The work directory as given and as resolved, both to be scrubbed from error texts. */
export async function workDirSpellings(workDir: string): Promise<string[]> {
  const real = await realpath(workDir).catch(() => workDir);
  return real === workDir ? [workDir] : [workDir, real];
}
