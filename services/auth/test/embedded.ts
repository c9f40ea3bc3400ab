// One embedded Auth per test file, in a temporary directory removed after the file's tests: its
// repository alone, or the whole service on free ports. Call at the top of a file; the getter
// answers once the file's beforeAll has run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDocStore } from '@media/docstore';
import { loadConfig } from '@media/platform';
import { openAuthRepository } from '../src/adapters/repository.js';
import type { AuthRepository } from '../src/domain/ports.js';
import { authConfigSpec, startAuth, type RunningAuth } from '../src/index.js';

/** Opens `open(dir)` in a new temporary directory before the file's tests; closes and removes after. */
function perFile<T>(name: string, open: (dir: string) => Promise<T>, close: (made: T) => Promise<void>): () => T {
  let dir: string | undefined;
  let made: T | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `auth-${name}-`));
    made = await open(dir);
  });
  afterAll(async () => {
    if (made !== undefined) await close(made);
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => made!;
}

/** Auth's repository on an embedded store. */
export const embeddedRepo = (name: string): (() => AuthRepository) => {
  const opened = perFile(
    name,
    async (dataDir) => {
      const store = await openDocStore({ database: 'auth', dataDir });
      return { store, repo: await openAuthRepository(store) };
    },
    ({ store }) => store.close(),
  );
  return () => opened().repo;
};

/** The Auth service on an embedded store, free ports and these settings. */
export const embeddedAuth = (name: string, env: Record<string, string> = {}): (() => RunningAuth) =>
  perFile(
    name,
    (dataDir) =>
      startAuth(loadConfig(authConfigSpec, { LOG_LEVEL: 'silent', DATA_DIR: dataDir, AUTH_PORT: '0', AUTH_ADMIN_PORT: '0', ...env })),
    (auth) => auth.close(),
  );
