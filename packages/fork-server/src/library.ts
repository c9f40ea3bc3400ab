import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The built library (`npm run build` compiles native/forkserver.c into dist/native when a C
 * compiler is present), next to the compiled code or, from the sources, in the package's dist.
 */
export function forkServerLibrary(): string | undefined {
  const candidates = ['./native/forkserver.so', '../dist/native/forkserver.so'].map((rel) => fileURLToPath(new URL(rel, import.meta.url)));
  return candidates.find((file) => existsSync(file));
}
