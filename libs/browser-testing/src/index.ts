/// <reference lib="dom" />
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

const libRoot = path.resolve(import.meta.dirname, '..');
const repoRoot = path.resolve(libRoot, '../..');
export const screenshotsDir = path.join(repoRoot, 'test-artifacts', 'screenshots');

/**
 * Flags for a desktop test run, as root, on a machine without internet. We do NOT use
 * `@sparticuz/chromium`'s own `args`: they are made for AWS Lambda. `--single-process` and `--no-zygote`
 * are there only because Lambda forbids the sandbox's prctl. Chromium supports single-process mode for
 * debugging only: it is flaky with several contexts or pages, and one renderer crash kills the whole
 * browser. `--disable-web-security`, `--allow-running-insecure-content` and `--disable-site-isolation-trials`
 * would hide the CORS, mixed-content and origin bugs that browser tests should catch. `--in-process-gpu` and
 * the SwiftShader/WebGL flags do nothing useful when the GPU is off.
 */
export const CHROMIUM_FLAGS = [
  '--no-sandbox', // tests run as root, and Chromium refuses its sandbox as root
  '--disable-gpu', // no GPU here; software compositing is enough for pages and screenshots
  '--disable-dev-shm-usage', // Docker/CI gives /dev/shm only 64 MB by default; Chromium crashes when it fills
  '--disable-quic', // no UDP traffic to the closed network
  '--no-first-run',
  '--disable-background-networking', // without these four, Chromium keeps trying Google services and
  '--disable-component-update', //      floods the closed network with refused connections
  '--disable-sync',
  '--disable-domain-reliability',
];

/** Runs `fn` while this process holds a lock directory; waits while a live process holds it. */
async function withLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (await lockIsStale(lock)) await rm(lock, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lock}; remove it if no test run is unpacking Chromium`);
    else await new Promise((r) => setTimeout(r, 100));
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** A lock is stale when the process that wrote its pid has died (e.g. a test run stopped with Ctrl-C). */
async function lockIsStale(lock: string): Promise<boolean> {
  const pid = Number(await readFile(path.join(lock, 'pid'), 'utf8').catch(() => ''));
  if (!pid) {
    // Between mkdir and the pid write, or left by a crash at that moment.
    const made = await stat(lock).then((s) => s.mtimeMs, () => 0);
    return Date.now() - made > 10_000;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function sparticuzVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const pkg = path.join(path.dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}

/**
 * The path of `@sparticuz/chromium`'s browser. On the first call on a machine this unpacks it (about 5 s).
 *
 * `@sparticuz/chromium` does not make concurrent first calls safe. `executablePath()` only checks that
 * `$TMPDIR/chromium` exists and decompresses straight into that path, so a second process can launch a
 * half-written binary. A run killed while unpacking leaves a truncated binary there for good. After a
 * version upgrade, the old binary keeps being returned. So we unpack in a child process whose TMPDIR is a
 * private temporary folder, then rename that folder to `$TMPDIR/loupe-chromium-<version>` in one step: the
 * folder only ever exists complete. A lock keeps parallel test files from each unpacking 200 MB. If the
 * lock is broken, they all unpack and the first rename wins.
 */
export async function chromiumExecutablePath(): Promise<string> {
  const dir = path.join(os.tmpdir(), `loupe-chromium-${sparticuzVersion()}`);
  const executable = path.join(dir, 'chromium');
  if (existsSync(executable)) return executable;
  return withLock(`${dir}.lock`, async () => {
    if (existsSync(executable)) return executable;
    // Holding the lock, no one else is unpacking: remove what runs killed mid-unpack left (up to 200 MB each).
    const leftover = `${path.basename(dir)}.unpacking-`;
    for (const name of await readdir(os.tmpdir())) {
      if (name.startsWith(leftover)) await rm(path.join(os.tmpdir(), name), { recursive: true, force: true });
    }
    const scratch = await mkdtemp(`${dir}.unpacking-`);
    try {
      const script = "const { default: c } = await import('@sparticuz/chromium'); console.log(await c.executablePath());";
      await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        cwd: libRoot, // resolves @sparticuz/chromium as this library does
        env: { ...process.env, TMPDIR: scratch, TMP: scratch, TEMP: scratch },
        timeout: 120_000,
      });
      if (!existsSync(path.join(scratch, 'chromium'))) throw new Error(`@sparticuz/chromium did not unpack into ${scratch}`);
      await rename(scratch, dir).catch((error: NodeJS.ErrnoException) => {
        if (!existsSync(executable)) throw error; // someone else's rename won: theirs is complete too
      });
      return executable;
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
}

/** Headless Chromium for Playwright from npm alone (`@sparticuz/chromium`), or the browser that `CHROMIUM_PATH` names. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH || (await chromiumExecutablePath());
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
}

/** A page in its own context (fresh cookies), as axe needs. Close the context with `page.context().close()`. */
export async function openPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  return context.newPage();
}

/** Saves a full-page PNG to `<repo>/test-artifacts/screenshots/<name>.png` for a person to open and judge, and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(screenshotsDir, { recursive: true });
  const file = path.join(screenshotsDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export interface Violation {
  /** axe rule id, e.g. `label`, `color-contrast`. */
  id: string;
  impact: string | null;
  help: string;
  /** CSS selectors of the offending elements (frames joined with ` >> `, shadow roots with ` >>> `). */
  targets: string[];
}

export interface AccessibilityOptions {
  /** Check only these parts of the page (CSS selectors). */
  include?: string[];
  /** Skip these parts of the page (CSS selectors), e.g. a third-party widget. */
  exclude?: string[];
  /** Skip these axe rules by id. Say why next to the call. */
  disableRules?: string[];
}

/** axe's WCAG 2.0/2.1 A and AA violations on the page, compact enough to read in a failed `toEqual([])`. */
export async function accessibilityViolations(page: Page, options: AccessibilityOptions = {}): Promise<Violation[]> {
  let axe = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']);
  for (const selector of options.include ?? []) axe = axe.include(selector);
  for (const selector of options.exclude ?? []) axe = axe.exclude(selector);
  if (options.disableRules?.length) axe = axe.disableRules(options.disableRules);
  const results = await axe.analyze();
  return results.violations.map((v) => ({
    id: v.id,
    impact: v.impact ?? null,
    help: v.help,
    targets: v.nodes.map((n) => n.target.map((t) => (Array.isArray(t) ? t.join(' >>> ') : String(t))).join(' >> ')),
  }));
}

/** Roles of the controls that `keyboardReachable` looks at: buttons, links and inputs. */
const CONTROL_ROLES = ['button', 'link', 'textbox', 'searchbox', 'combobox', 'listbox', 'checkbox', 'radio', 'switch', 'spinbutton', 'slider'] as const;

const exactName = (name: string) =>
  new RegExp(`^\\s*${name.trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+')}\\s*$`, 'i');

/**
 * Presses Tab from the top of the page (up to 50 times) and returns which of `accessibleNames` got focus,
 * in the order given. Only buttons, links and inputs count. A name is the accessible name as Playwright
 * computes it (label, aria-label, text), compared whole and case-insensitively.
 */
export async function keyboardReachable(page: Page, accessibleNames: string[]): Promise<string[]> {
  const focused = page.locator(':focus');
  const pending = new Map<string, Locator>(
    accessibleNames.map((name) => {
      const controls = CONTROL_ROLES.map((role) => page.getByRole(role, { name: exactName(name) })).reduce((a, b) => a.or(b));
      return [name, controls.and(focused)];
    }),
  );
  // Tab starts from the last focused or clicked point, not the top, even after blur(). So focus a
  // temporary non-tabbable element at the start of <body> first.
  await page.evaluate(() => {
    const start = document.createElement('span');
    start.tabIndex = -1;
    start.dataset.loupeTabStart = '';
    document.body.prepend(start);
    start.focus({ preventScroll: true });
  });
  const reached = new Set<string>();
  try {
    for (let i = 0; i < 50 && pending.size > 0; i++) {
      await page.keyboard.press('Tab');
      for (const [name, locator] of pending) {
        if ((await locator.count()) > 0) {
          reached.add(name);
          pending.delete(name);
        }
      }
    }
  } finally {
    await page.evaluate(() => document.querySelector('[data-loupe-tab-start]')?.remove()).catch(() => {});
  }
  return accessibleNames.filter((n) => reached.has(n));
}

export type { Browser, Page };

/** A browser's cookies for HTTP tests without a browser. */
export { CookieJar, FormBrowser, csrfOf } from './cookie-jar';
