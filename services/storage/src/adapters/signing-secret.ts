import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The configured secret, or one generated once and kept (0600) so URLs survive a restart. */
export async function signingSecret(configured: string | undefined, file: string): Promise<string> {
  if (configured) return configured;
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const secret = randomBytes(32).toString('base64url');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, secret, { mode: 0o600, flag: 'wx' }).catch(async () => undefined);
    return (await readFile(file, 'utf8')).trim();
  }
}
