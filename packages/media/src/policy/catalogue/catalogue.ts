// The FFmpeg catalogue, read once: packages/media/policy/ffmpeg-catalogue.json, generated from the
// build in use by catalogue/generate.mjs (same path from src/ under jest and from dist/).
import { readFileSync } from 'node:fs';
import type { AvOption, Catalogue } from './types.js';

export const CATALOGUE: Catalogue = JSON.parse(
  readFileSync(new URL('../../../policy/ffmpeg-catalogue.json', import.meta.url), 'utf8'),
) as Catalogue;

/** Every option of a table by name, aliases included. */
export function optionsByName(options: readonly AvOption[]): ReadonlyMap<string, AvOption> {
  return new Map(options.map((o) => [o.name, o]));
}
