import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary directory and a function that removes it. */
export async function tempDir(prefix = 'media-test-'): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** True under CI: tests needing real infrastructure must fail rather than skip there. */
export const underCI = process.env.CI === 'true' || process.env.CI === '1';
