import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { accessibilityViolations, launchChromium, saveScreenshot } from '@loupe/browser-testing';
import { signInWithLoggedCode } from './callback-server';
import { startProcess, type Started } from './process';

// Issue 27: the evidence pages of `npm start` with the demo workspace, in a real Chromium (axe on each,
// screenshots in test-artifacts/screenshots/evidence-*), and what a person changes there seen at once by
// an AI client over MCP (get_opportunities, view_item).
describe('evidence pages', () => {
  let dataDir: string;
  let service: Started;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let mcp: Client;
  let ws: string;
  let opportunities: Array<{ id: string; title: string; evidence_count: number }>;
  const signalIds: string[] = [];

  const call = async (name: string, args: Record<string, unknown>): Promise<any> => {
    const r = await mcp.callTool({ name, arguments: args });
    return { ...(r.structuredContent as object), isError: r.isError, text: (r.content as Array<{ text?: string }>)[0]?.text };
  };
  const until = async <T>(what: string, fn: () => Promise<T | undefined>, ms = 90_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v !== undefined) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  async function look(name: string) {
    expect(await accessibilityViolations(page), name).toEqual([]);
    await saveScreenshot(page, `evidence-${name}`);
  }
  /** No signal waiting for the worker, and the counts the same twice, a second apart. */
  const settled = () => until('the regrouping to settle', async () => {
    const r = await call('get_opportunities', { limit: 100 });
    if (r.pending_signals !== 0) return undefined;
    const first = JSON.stringify([...(await countsNow())].sort());
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return JSON.stringify([...(await countsNow())].sort()) === first ? true : undefined;
  });
  const countsNow = async () => new Map(((await call('get_opportunities', { limit: 100 })).items as typeof opportunities).map((o) => [o.id, o.evidence_count]));

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-evidence-'));
    delete process.env.DATABASE_URL;
    const port = await freePort();
    [service, browser] = await Promise.all([
      startProcess({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()) }),
      launchChromium(),
    ]);
    const key = /API key:\s+(\S+)/.exec(service.output())![1]!;
    ws = /Workspace:\s+(\S+)/.exec(service.output())![1]!;
    mcp = new Client({ name: 'e2e-evidence', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    // The demo evidence becomes sources in the worker; an assistant then records signals from them.
    const sources = await until('the demo sources', async () => {
      const r = await call('find_sources', { limit: 10 });
      return r.items?.length >= 3 ? (r.items as Array<{ id: string; title: string }>) : undefined;
    });
    const themes: Array<[string, string, string, string, string]> = [
      ['pain_point', 'Quarterly export to Excel is slow', 'Exporting the quarterly report to Excel takes twenty minutes and times out.', 'Ana Ruiz', 'Slow export'],
      ['pain_point', 'CSV export fails on large reports', 'The CSV export of the usage report fails once it has a few thousand rows.', 'Claire Redfield', 'Slow export'],
      ['need', 'Scheduled export by email', 'If we could schedule the export overnight and get it by email, that would save a day each quarter.', 'Ana Ruiz', 'Scheduled export'],
      ['need', 'SAML single sign-on required', 'Security policy requires SAML single sign-on through Okta before rollout.', 'Tom Thorn', 'Single sign-on (SSO)'],
      ['need', 'Login through Active Directory', 'Our admins want every employee to sign in through Active Directory with SAML single sign-on.', 'Tom Thorn', 'Single sign-on (SSO)'],
    ];
    for (const [i, [type, title, content, who, theme]] of themes.entries()) {
      const r = await call('add_signals', { source_id: sources[i % sources.length]!.id, signals: [{ type, title, content, who_said_it: who, theme }] });
      expect(r.isError, r.text).toBeFalsy();
      signalIds.push(r.signals[0].id);
    }
    opportunities = await until('the opportunities', async () => {
      const r = await call('get_opportunities', { limit: 100 });
      return r.pending_signals === 0 && r.items.length >= 2 ? r.items : undefined;
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await page.goto(`${service.url}/account/w/${ws}/opportunities`);
    await signInWithLoggedCode(page, 'demo@loupe.local', () => service.output());
    await page.getByRole('heading', { name: 'Opportunities', exact: true }).waitFor();
  }, 240_000);
  afterAll(async () => {
    await mcp?.close().catch(() => {});
    await context?.close().catch(() => {});
    await browser?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('walks the opportunities, an opportunity, the signals, a signal, the sources, a source and the usage page', async () => {
    await look('01-opportunities');
    const biggest = opportunities[0]!;
    await page.getByRole('link', { name: biggest.title }).click();
    await page.getByRole('heading', { name: biggest.title }).waitFor();
    await page.getByRole('heading', { name: 'Evidence, newest first' }).waitFor();
    await look('02-opportunity');
    await page.getByRole('link', { name: 'Signals', exact: true }).click();
    await page.getByRole('heading', { name: 'Signals', exact: true }).waitFor();
    await page.getByText('written by Demo key (every permission)').first().waitFor();
    await look('03-signals');
    await page.getByLabel('Type', { exact: true }).selectOption({ label: 'Need' });
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByRole('link', { name: 'Clear filters' }).waitFor();
    expect(await page.getByRole('checkbox').count()).toBe(3);
    await look('04-signals-filtered');
    await page.getByRole('link', { name: 'Scheduled export by email' }).click();
    await page.getByRole('heading', { name: 'Scheduled export by email' }).waitFor();
    await look('05-signal');
    await page.getByRole('link', { name: 'Sources', exact: true }).click();
    await page.getByLabel('Words').fill('export');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('mark').first().waitFor();
    await look('06-sources-search');
    await page.locator('ol.results a.strong').first().click();
    await page.getByRole('heading', { name: 'Content' }).waitFor();
    await look('07-source');
    await page.getByRole('link', { name: 'Credits and usage' }).click();
    await page.getByRole('heading', { name: 'Credits and usage' }).waitFor();
    expect(await page.locator('.stat .value').first().textContent()).toMatch(/^\d{1,3}(,\d{3})*$/);
    await look('08-usage');
  }, 120_000);

  it('walks the shaping notes: a note rendered from markdown, its versions compared, one restored', async () => {
    const prd = [
      '# Scheduled exports', '', 'Finance teams export the usage report **every Monday** and it times out above a few thousand rows.', '',
      '## Problem', '', '- Exports over 40,000 rows fail', '- People split reports by hand', '', '## Evidence', '',
      '> If we could schedule the export overnight and get it by email, that alone would save us a day each quarter.', '',
      'See [the support thread](https://support.example.com/t/123) and <script>alert("no")</script>.', '', '![chart](https://tracker.example/pixel.png)',
    ].join('\n');
    const created = await call('create_shaping_note', { title: 'PRD: scheduled exports', content: prd, status: 'ideas' });
    expect(created.isError, created.text).toBeFalsy();
    const id = created.id as string;
    expect((await call('update_shaping_note', { note_id: id, content: prd.replace('- People split reports by hand', '- People split reports by region and glue them by hand\n- Scheduled delivery by email is asked for') })).isError).toBeFalsy();
    await page.getByRole('link', { name: 'Shaping notes' }).click();
    await page.getByRole('heading', { name: 'Shaping notes' }).waitFor();
    await look('11-notes');
    await page.getByRole('link', { name: 'PRD: scheduled exports' }).click();
    await page.getByRole('heading', { name: 'PRD: scheduled exports' }).waitFor();
    expect(await page.locator('article.prose script, article.prose img').count()).toBe(0);
    await page.locator('article.prose a.external').first().waitFor();
    await look('12-note');
    await page.getByRole('button', { name: 'Show the changes' }).click();
    await page.getByRole('heading', { name: 'Changes from version 1 to 2' }).waitFor();
    await look('13-note-diff');
    await page.getByRole('link', { name: 'Read version 1' }).click();
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByRole('status').filter({ hasText: 'Restored' }).waitFor();
    await page.getByLabel('Move it to').selectOption({ label: 'PRDs' });
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.getByRole('status').filter({ hasText: 'Status changed.' }).waitFor();
    await look('14-note-restored');
    const seen = await call('view_item', { item_type: 'shaping_note', item_id: id });
    expect(seen.item).toMatchObject({ version: 4, status: 'prds', content: prd });
  }, 120_000);

  it("a person's edit, move and delete are seen at once by get_opportunities and view_item over MCP", async () => {
    const [, csv, , sso] = signalIds as [string, string, string, string, string];
    // Edit: view_item shows the new text on the very next call.
    await page.goto(`${service.url}/account/w/${ws}/signals/${csv}`);
    await page.getByLabel('Title').fill('CSV export fails above 40,000 rows');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Signal saved.' }).waitFor();
    const edited = await call('view_item', { item_type: 'signal', item_id: csv });
    expect(edited.item.title).toBe('CSV export fails above 40,000 rows');
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.getByText(/demo@loupe\.local\s+edited title/).waitFor();

    // The edit queued the product's regrouping: let the worker finish it, so that only the move changes the counts.
    await settled();

    // Move: the counts of both opportunities and the evidence of the new one change at once.
    const from = (await call('view_item', { item_type: 'signal', item_id: sso })).item.opportunity.id as string;
    const to = opportunities.find((o) => o.id !== from)!;
    const before = await countsNow();
    await page.goto(`${service.url}/account/w/${ws}/signals/${sso}`);
    await page.getByLabel('Opportunity', { exact: true }).selectOption(to.id);
    await page.getByRole('button', { name: 'Move' }).click();
    await page.getByRole('status').filter({ hasText: 'Moved.' }).waitFor();
    await look('09-signal-moved');
    const after = await countsNow();
    expect(after.get(to.id)).toBe(before.get(to.id)! + 1);
    expect(after.get(from) ?? 0).toBe(before.get(from)! - 1);
    const target = await call('view_item', { item_type: 'opportunity', item_id: to.id });
    expect((target.item.evidence as Array<{ id: string }>).map((e) => e.id)).toContain(sso);
    expect((await call('view_item', { item_type: 'signal', item_id: sso })).item.opportunity.id).toBe(to.id);

    // The worker regroups the product after the next change (an edit of another signal's text queues it;
    // a product this small is re-clustered in full): the moved signal stays where it was put.
    await page.goto(`${service.url}/account/w/${ws}/signals/${signalIds[0]}`);
    await page.getByRole('textbox', { name: 'What was said' }).fill('Exporting the quarterly report to Excel takes twenty minutes, and often times out.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Signal saved.' }).waitFor();
    await until('the regrouping after the edit', async () => {
      const r = await call('get_opportunities', { limit: 100 });
      return r.pending_signals === 0 ? true : undefined;
    });
    expect((await call('view_item', { item_type: 'signal', item_id: sso })).item.opportunity.id).toBe(to.id);
    await page.goto(`${service.url}/account/w/${ws}/signals/${sso}`);

    // Delete: gone from view_item and from the counts at once.
    const beforeDelete = await countsNow();
    await page.getByRole('button', { name: 'Delete signal' }).click();
    await page.getByRole('status').filter({ hasText: 'Signal deleted.' }).waitFor();
    const gone = await call('view_item', { item_type: 'signal', item_id: sso });
    expect(gone.isError).toBe(true);
    expect((await countsNow()).get(to.id) ?? 0).toBe(beforeDelete.get(to.id)! - 1);
    await look('10-signals-after-delete');

    // A page's selection marked "not a signal" at once.
    await page.goto(`${service.url}/account/w/${ws}/signals`);
    await page.getByRole('checkbox', { name: /Select “Login through Active Directory”/ }).check();
    await page.getByLabel('Action').selectOption('not_a_signal');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await page.getByRole('status').filter({ hasText: 'marked as not signals' }).waitFor();
    expect((await call('view_item', { item_type: 'signal', item_id: signalIds[4]! })).isError).toBe(true);
  }, 120_000);
});
