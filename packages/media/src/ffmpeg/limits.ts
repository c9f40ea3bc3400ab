// Kernel resource limits for one ffmpeg/ffprobe process, applied with util-linux `prlimit` (which
// sets them on itself and then execs the tool, so the pid we hold is the tool's own).
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';

export interface SandboxLimits {
  /**
   * RLIMIT_AS: virtual memory. A cap on runaway allocation (pixel floods, decompression bombs), not
   * a memory budget: address space runs 3-4x ahead of resident memory in encoders (x264 at 8K with
   * 16 threads, the most the option policy allows: 2.8 GB resident, 11 GB address space). Budget
   * real memory with the container's cgroup limit.
   */
  addressSpaceBytes: number;
  /** RLIMIT_FSIZE: no file the process writes may grow past this (SIGXFSZ kills it). */
  fileSizeBytes: number;
  /** RLIMIT_NOFILE: 100 inputs + 50 outputs + libraries fit comfortably. */
  openFiles: number;
  /** RLIMIT_CPU (seconds): a backstop if the wall-clock kill is ever missed. */
  cpuSeconds: number;
}

export const DEFAULT_ADDRESS_SPACE_BYTES = 16 * 1024 ** 3;
export const DEFAULT_OPEN_FILES = 512;

/**
 * Limits for a run with the given wall-clock budget and output size cap. CPU time counts every
 * thread, so the backstop is the wall budget times the cores plus a minute: it never fires before
 * the wall-clock kill on a healthy host, but bounds an ffmpeg that somehow outlived it.
 */
export function limitsFor(timeoutMs: number, maxOutputBytes: number, overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  return {
    addressSpaceBytes: DEFAULT_ADDRESS_SPACE_BYTES,
    fileSizeBytes: maxOutputBytes,
    openFiles: DEFAULT_OPEN_FILES,
    cpuSeconds: Math.ceil(timeoutMs / 1000) * availableParallelism() + 60,
    ...overrides,
  };
}

// RLIMIT names as /proc/self/limits spells them.
const PROC_NAMES: Record<keyof SandboxLimits, string> = {
  addressSpaceBytes: 'Max address space',
  fileSizeBytes: 'Max file size',
  openFiles: 'Max open files',
  cpuSeconds: 'Max cpu time',
};

let hardLimits: Promise<Partial<Record<keyof SandboxLimits, number>>> | undefined;

/**
 * Our own hard limits. A child may not raise a hard limit above its parent's, and prlimit would
 * then fail outright, so requested values are clamped to these.
 */
function currentHardLimits(): Promise<Partial<Record<keyof SandboxLimits, number>>> {
  hardLimits ??= readFile('/proc/self/limits', 'utf8').then(
    (text) => {
      const out: Partial<Record<keyof SandboxLimits, number>> = {};
      for (const [key, label] of Object.entries(PROC_NAMES) as [keyof SandboxLimits, string][]) {
        const line = text.split('\n').find((l) => l.startsWith(label));
        const hard = line?.slice(label.length).trim().split(/\s+/)[1];
        if (hard && hard !== 'unlimited' && /^\d+$/.test(hard)) out[key] = Number(hard);
      }
      return out;
    },
    () => ({}), // not Linux /proc: nothing to clamp against
  );
  return hardLimits;
}

/** The limits as the kernel takes them, clamped to our own hard limits; soft = hard for each. */
export async function rlimitValues(
  limits: SandboxLimits,
): Promise<{ as: number; fsize: number; nofile: number; cpu: number; core: number }> {
  const hard = await currentHardLimits();
  const value = (key: keyof SandboxLimits) => {
    const want = Math.max(0, Math.floor(limits[key]));
    const cap = hard[key];
    return cap === undefined ? want : Math.min(want, cap);
  };
  return {
    as: value('addressSpaceBytes'),
    fsize: value('fileSizeBytes'),
    nofile: value('openFiles'),
    cpu: value('cpuSeconds'),
    // No core dumps: they would land in the work directory, full of process memory.
    core: 0,
  };
}

/** `prlimit` arguments (before `--`): soft = hard, so the tool cannot raise them again. */
export async function prlimitArgs(limits: SandboxLimits): Promise<string[]> {
  return Object.entries(await rlimitValues(limits)).map(([name, value]) => `--${name}=${value}`);
}
