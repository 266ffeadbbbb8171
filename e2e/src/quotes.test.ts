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

// Issue 48's acceptance against `npm start` with the demo workspace: quotes an AI client writes are
// checked against the source over MCP, and the evidence pages show the same in a real Chromium.
describe('quotes checked against the source (issue 48)', () => {
  let dataDir: string;
  let service: Started;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let mcp: Client;
  let ws: string;
  let globex: string;

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

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-quotes-'));
    delete process.env.DATABASE_URL;
    const port = await freePort();
    [service, browser] = await Promise.all([
      startProcess({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()) }),
      launchChromium(),
    ]);
    const key = /API key:\s+(\S+)/.exec(service.output())![1]!;
    ws = /Workspace:\s+(\S+)/.exec(service.output())![1]!;
    mcp = new Client({ name: 'e2e-quotes', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    globex = await until('the demo call with Globex', async () => {
      const r = await call('find_sources', { query: 'Globex quarterly review', limit: 5 });
      return (r.items as Array<{ id: string; title: string }> | undefined)?.find((s) => s.title === 'Quarterly review with Globex')?.id;
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await page.goto(`${service.url}/account/w/${ws}/signals`);
    await signInWithLoggedCode(page, 'demo@loupe.local', () => service.output());
    await page.getByRole('heading', { name: 'Signals', exact: true }).waitFor();
  }, 240_000);
  afterAll(async () => {
    await mcp?.close().catch(() => {});
    await context?.close().catch(() => {});
    await browser?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('add_signals verifies a re-cased quote in typographic quotes at its segment and names a quote with a changed number as not found; the pages show both', async () => {
    const r = await call('add_signals', {
      source_id: globex,
      signals: [
        { type: 'pain_point', title: 'Quarterly Excel export is painful', content: 'Ana: “HONESTLY, EXPORTING THE QUARTERLY REPORT TO EXCEL IS PAINFUL.” It times out.', who_said_it: 'Ana Ruiz', theme: 'Slow export' },
        { type: 'pain_point', title: 'Exports split by region', content: 'Ana: "We split it by region and export seven times, then glue the files together by hand."', who_said_it: 'Ana Ruiz', theme: 'Slow export' },
      ],
    });
    expect(r.isError, r.text).toBeFalsy();
    const [verified, changed] = r.signals;
    expect(verified).toMatchObject({ quotes_verified: 'all', quotes: [{ verified: true, position: 1, speaker: 'Ana Ruiz' }] });
    expect(changed).toMatchObject({ quotes_verified: 'none', quotes: [{ verified: false }] });
    expect(r.text).toMatch(new RegExp(`Not found in the source[^]*\`${changed.id}\`: "We split it by region and export seven times`));

    const opportunity = await until('the signals placed', async () => {
      const o = await call('get_opportunities', { limit: 100 });
      if (o.pending_signals !== 0) return undefined;
      return (o.items as Array<{ id: string; title: string; verified_signals: number; verified_share: number; evidence_count: number }>)
        .find((item) => item.verified_signals >= 1);
    });
    expect(opportunity.verified_share).toBeCloseTo(opportunity.verified_signals / opportunity.evidence_count, 2);

    await page.goto(`${service.url}/account/w/${ws}/signals/${verified.id}`);
    await page.getByText('Quote verified').first().waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await saveScreenshot(page, 'e2e-quotes-signal');
    await page.getByRole('link', { name: 'segment 2, Ana Ruiz' }).click();
    await page.waitForURL(`${service.url}/account/w/${ws}/sources/${globex}?quote=1#seg-1`);
    expect(await page.locator('li.quoted').textContent()).toContain('exporting the quarterly report to Excel is painful');
    await saveScreenshot(page, 'e2e-quotes-source');

    await page.goto(`${service.url}/account/w/${ws}/signals/${changed.id}`);
    await page.getByText('Quote not found in the source').first().waitFor();

    await page.goto(`${service.url}/account/w/${ws}/opportunities/${opportunity.id}`);
    const share = `${opportunity.verified_signals} of ${opportunity.evidence_count} signal${opportunity.evidence_count === 1 ? '' : 's'} (${Math.round(opportunity.verified_share * 100)}%)`;
    expect(await page.locator('.verified-share').textContent()).toContain(share);
    await saveScreenshot(page, 'e2e-quotes-opportunity');
  });

  it('a shaping note citing an unknown source id and a fabricated quote reports both in its result and on its page', async () => {
    const note = await call('create_shaping_note', {
      title: 'Scheduled exports',
      content: `## Evidence\n\nAna (${globex}): “If we could schedule the export overnight and get it by email, that alone would save us a day each quarter.”\n\nShe added “we would pay double for scheduled exports” (${globex}).\n\nAlso src_01notarealsource.`,
    });
    expect(note.isError, note.text).toBeFalsy();
    expect(note.citations).toMatchObject({ sources: [globex], unknown_ids: ['src_01notarealsource'], quotes_verified: 1, quotes_not_found: ['we would pay double for scheduled exports'] });
    expect(note.text).toContain('`src_01notarealsource`');
    expect(note.text).toContain('- "we would pay double for scheduled exports"');
    await page.goto(`${service.url}/account/w/${ws}/notes/${note.id}`);
    await page.getByRole('heading', { name: /Citations/ }).waitFor();
    expect(await page.locator('section.quote-checks').textContent()).toMatch(/Unknown\s+src_01notarealsource[^]*Not found\s+“we would pay double for scheduled exports”/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await saveScreenshot(page, 'e2e-quotes-note');
  });
});
