/// <reference lib="dom" />
import { mkdir, rmdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser, type Page } from 'playwright-core';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
export const screenshotsDir = path.join(repoRoot, 'test-artifacts', 'screenshots');

// A desktop test run on a machine without internet: no sandbox (tests run as root), no GPU, and no
// background traffic to Google services that would only meet refused connections.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Serialises the first unpacking of @sparticuz/chromium's compressed browser between parallel test
 * processes: it checks only that the file exists, so a second process could run a half-written binary.
 */
async function withUnpackLock<T>(fn: () => Promise<T>): Promise<T> {
  const lock = path.join(os.tmpdir(), 'loupe-chromium-unpack.lock');
  for (let i = 0; ; i++) {
    try {
      await mkdir(lock);
      break;
    } catch {
      const age = Date.now() - (await stat(lock).then((s) => s.mtimeMs, () => Date.now()));
      if (age > 120_000 || i > 1200) await rmdir(lock).catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    await rmdir(lock).catch(() => {});
  }
}

/** Chromium for Playwright from npm alone (`@sparticuz/chromium`), or the browser `CHROMIUM_PATH` names. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH || (await withUnpackLock(() => sparticuz.executablePath()));
  return chromium.launch({ executablePath, headless: true, args: FLAGS });
}

/** A page in its own context (fresh cookies), as axe needs. Close the context with `page.context().close()`. */
export async function openPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}

/** A full-page PNG under test-artifacts/screenshots/, for a person to open and judge. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(screenshotsDir, { recursive: true });
  const file = path.join(screenshotsDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export interface Violation {
  id: string;
  impact: string | null | undefined;
  help: string;
  targets: string[];
}

/** axe's WCAG 2.1 A/AA violations on the page, compact enough to read in a failed assertion. */
export async function accessibilityViolations(page: Page): Promise<Violation[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/**
 * Tabs through the page from the top (up to 50 stops) and returns which of the given accessible
 * names (buttons, links, inputs; compared case-insensitively) received focus, in the given order.
 */
export async function keyboardReachable(page: Page, names: string[]): Promise<string[]> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.locator('body').focus().catch(() => {});
  const reached = new Set<string>();
  for (let i = 0; i < 50; i++) {
    await page.keyboard.press('Tab');
    const name = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return '';
      const labelled = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : undefined;
      return (el.getAttribute('aria-label') ?? labelled ?? el.closest('label')?.textContent ?? el.textContent ?? '').trim();
    });
    for (const wanted of names) if (name.toLowerCase().includes(wanted.toLowerCase())) reached.add(wanted);
  }
  return names.filter((n) => reached.has(n));
}

export type { Browser, Page };
