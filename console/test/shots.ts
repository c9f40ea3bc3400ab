// Screenshots of the console's pages for the browser tests: with CONSOLE_SCREENSHOTS=<dir>
// (relative to the repository), each page at desktop and phone width (docs/console/ holds the
// committed ones: CONSOLE_SCREENSHOTS=docs/console npx jest console).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { root } from '@media/testkit';

const SHOTS = process.env.CONSOLE_SCREENSHOTS ? join(root, process.env.CONSOLE_SCREENSHOTS) : undefined;

/** Saves `page` as <name>-desktop.png and <name>-phone.png; nothing without CONSOLE_SCREENSHOTS. */
export async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  await mkdir(SHOTS, { recursive: true });
  for (const [width, height, label] of [
    [1280, 800, 'desktop'],
    [390, 844, 'phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: join(SHOTS, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
