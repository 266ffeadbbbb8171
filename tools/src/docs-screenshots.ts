import { copyFile, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const screenshotsDir = path.join(repoRoot, 'test-artifacts', 'screenshots');

/**
 * The pictures in the product guide, each a screenshot the browser tests take (libs/browser-testing
 * `saveScreenshot`), so the guide shows the pages as they are. `npm run docs:screenshots` copies them
 * after the tests have run.
 */
export const GUIDE_SCREENSHOTS: ReadonlyArray<{ from: string; to: string; takenBy: string }> = [
  { from: 'signup-1-sign-in', to: 'docs/product/images/sign-in.png', takenBy: 'e2e/src/oauth.test.ts' },
  { from: 'signup-2-code', to: 'docs/product/images/sign-in-code.png', takenBy: 'e2e/src/oauth.test.ts' },
  { from: 'two-workspaces-1-choose', to: 'docs/product/images/choose-workspace.png', takenBy: 'e2e/src/oauth.test.ts' },
  { from: 'signup-4-consent', to: 'docs/product/images/consent.png', takenBy: 'e2e/src/oauth.test.ts' },
  { from: 'evidence-01-opportunities', to: 'docs/product/images/opportunities.png', takenBy: 'evidence-pages.test.ts' },
  { from: 'evidence-02-opportunity', to: 'docs/product/images/opportunity.png', takenBy: 'evidence-pages.test.ts' },
  { from: 'evidence-05-signal', to: 'docs/product/images/signal.png', takenBy: 'evidence-pages.test.ts' },
  { from: 'evidence-06-sources-search', to: 'docs/product/images/sources-search.png', takenBy: 'evidence-pages.test.ts' },
  { from: 'evidence-13-note-diff', to: 'docs/product/images/note-diff.png', takenBy: 'evidence-pages.test.ts' },
  { from: 'e2e-quotes-signal', to: 'docs/product/images/signal-quotes.png', takenBy: 'e2e/src/quotes.test.ts' },
  { from: 'e2e-quotes-note', to: 'docs/product/images/note-citations.png', takenBy: 'e2e/src/quotes.test.ts' },
  { from: 'companies-01-list', to: 'docs/product/images/companies.png', takenBy: 'apps/web/src/companies-pages.test.ts' },
  { from: 'companies-02-company', to: 'docs/product/images/company.png', takenBy: 'apps/web/src/companies-pages.test.ts' },
  { from: 'account-05-key-created', to: 'docs/product/images/key-created.png', takenBy: 'account.test.ts' },
];

/** Copies every guide screenshot from test-artifacts/screenshots; names the ones no test has taken yet. */
export async function copyGuideScreenshots(): Promise<{ copied: string[]; missing: string[] }> {
  const copied: string[] = [];
  const missing: string[] = [];
  for (const shot of GUIDE_SCREENSHOTS) {
    const from = path.join(screenshotsDir, `${shot.from}.png`);
    if (!(await stat(from).catch(() => undefined))) {
      missing.push(`${shot.from}.png (taken by ${shot.takenBy})`);
      continue;
    }
    await mkdir(path.dirname(path.join(repoRoot, shot.to)), { recursive: true });
    await copyFile(from, path.join(repoRoot, shot.to));
    copied.push(shot.to);
  }
  return { copied, missing };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { copied, missing } = await copyGuideScreenshots();
  for (const file of copied) console.log(`copied ${file}`);
  if (missing.length) {
    console.error(`Not taken yet; run the browser tests first (npm test):\n  ${missing.join('\n  ')}`);
    process.exitCode = 1;
  }
}
