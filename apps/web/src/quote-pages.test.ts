import { newId } from '@loupe/db';
import { addSignals, updateOpportunities } from '@loupe/evidence';
import { startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { createShapingNote } from '@loupe/shaping';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, saveScreenshot } from '@loupe/browser-testing';
import { Person, signInToAccount, startWebServer, type WebHarness } from './test/harness';

// Issue 48: the evidence pages show whether each quote was found in its source and link it there.
let h: WebHarness;
let semantics: SemanticsThread;
let owner: Person;
const clock = { now: () => Date.now() };
let ws: string;
let prod: string;
let src: string;
let verifiedId: string;
let fabricatedId: string;
let plainId: string;

const SEGMENTS: Array<[speaker: string, text: string]> = [
  ['Ben Cole', 'Thanks for joining. How are exports going?'],
  ['Ana Ruiz', 'Exporting the quarterly report to Excel takes twenty minutes, every single time.'],
  ['Ben Cole', 'Is it the same with CSV?'],
  ['Ana Ruiz', 'CSV is a bit faster, but it still times out on big reports.'],
];

beforeAll(async () => {
  semantics = startSemanticsThread();
  h = await startWebServer({});
  owner = new Person(h, 'owner@quotes.test');
  await signInToAccount(h, owner);
  ws = newId('ws');
  prod = `prod_${ws}`;
  await h.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'Quotes']);
  await h.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'Acme app']);
  const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [owner.email]);
  await h.pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [ws, rows[0]!.id, 'owner']);
  src = newId('src');
  await h.pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status, segment_count) VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call with Globex', now(), 'ready', $4)`,
    [src, ws, prod, SEGMENTS.length],
  );
  for (const [i, [speaker, text]] of SEGMENTS.entries()) {
    await h.pool.query(`INSERT INTO source_segments (source_id, position, kind, speaker, text) VALUES ($1, $2, 'turn', $3, $4)`, [src, i, speaker, text]);
  }
  const { results } = await addSignals(h.pool, {
    workspaceId: ws, sourceId: src,
    items: [
      { type: 'pain_point', title: 'Excel export is slow', content: 'Ana: “exporting the quarterly report to Excel takes twenty minutes”', whoSaidIt: 'Ana Ruiz', theme: 'Slow export' },
      { type: 'pain_point', title: 'Excel export takes an hour', content: 'Ana: "exporting the quarterly report to Excel takes sixty minutes"', whoSaidIt: 'Ana Ruiz', theme: 'Slow export' },
      { type: 'pain_point', title: 'Exports are slow', content: 'Exports are slow for big reports.', whoSaidIt: 'Ana Ruiz', theme: 'Slow export' },
    ],
  }, clock);
  [verifiedId, fabricatedId, plainId] = results.map((r) => r.id) as [string, string, string];
  await updateOpportunities({ pool: h.pool, semantics, clock }, ws, prod);
});
afterAll(async () => {
  await h?.close();
  await semantics?.close();
});

describe('quotes on the evidence pages (issue 48)', () => {
  it('the signal page links a verified quote to its segment, highlighted on the source page, and marks a quote not found', async () => {
    const page = await (await owner.get(`/account/w/${ws}/signals/${verifiedId}`)).text();
    const link = `/account/w/${ws}/sources/${src}?quote=1#seg-1`;
    expect(page).toContain(`<a href="${link}">segment 2, Ana Ruiz</a>`);
    expect(page).toContain('<span class="mark ok">Quote verified</span>');
    const source = await (await owner.get(link.replace(/#.*/, ''))).text();
    expect(source).toMatch(/<li id="seg-1" class="quoted" aria-current="true"><span class="mark ok">Quoted<\/span>/);
    expect(source).not.toMatch(/<li id="seg-3" class="quoted"/);
    const missing = await (await owner.get(`/account/w/${ws}/signals/${fabricatedId}`)).text();
    expect(missing).toContain('<span class="mark bad">Quote not found in the source</span>');
    expect(missing).toMatch(/<span class="mark bad">Not found<\/span> “exporting the quarterly report to Excel takes sixty minutes”/);
  });

  it('the signals list marks each signal and filters by verification', async () => {
    const all = await (await owner.get(`/account/w/${ws}/signals`)).text();
    expect(all).toContain('Quote verified');
    expect(all).toContain('Quote not found in the source');
    const notFound = await (await owner.get(`/account/w/${ws}/signals?verified=not_found`)).text();
    expect(notFound).toContain(fabricatedId);
    expect(notFound).not.toContain(verifiedId);
    expect(notFound).not.toContain(plainId);
    const verified = await (await owner.get(`/account/w/${ws}/signals?verified=all`)).text();
    expect(verified).toContain(verifiedId);
    expect(verified).not.toContain(fabricatedId);
    expect(await (await owner.get(`/account/w/${ws}/signals?verified=no_quote`)).text()).toContain(plainId);
  });

  it('each opportunity shows the share of its evidence with verified quotes', async () => {
    const { rows } = await h.pool.query<{ opportunity_id: string; n: number }>(
      'SELECT opportunity_id, count(*)::int AS n FROM opportunity_signals WHERE signal_id = ANY($1) GROUP BY opportunity_id', [[verifiedId, fabricatedId, plainId]],
    );
    const opp = rows.find((r) => r.n === 3)!.opportunity_id;
    const one = await (await owner.get(`/account/w/${ws}/opportunities/${opp}`)).text();
    expect(one).toContain('<strong>1 of 3 signals (33%)</strong> have every quote verified in their source.');
    const list = await (await owner.get(`/account/w/${ws}/opportunities`)).text();
    expect(list).toMatch(/<td class="num nowrap">33%<p class="meta">1 of 3<\/p><\/td>/);
  });

  it('a note lists its citations: an unknown id and a fabricated quote marked, a true quote linked to its segment', async () => {
    const note = await createShapingNote(h.pool, {
      workspaceId: ws, productId: prod, title: 'Faster exports', status: null, tags: [],
      content: `## Problem\n\nAna (${src}): “CSV is a bit faster, but it still times out on big reports.”\n\nShe also said “CSV exports crash every single day” (${src}).\n\nSee src_invented0001.`,
    }, clock);
    const page = await (await owner.get(`/account/w/${ws}/notes/${note.id}`)).text();
    expect(page).toContain('<span class="mark warn">1 of 2 quotes verified</span>');
    expect(page).toContain('<span class="mark bad">1 unknown id</span>');
    expect(page).toMatch(/<span class="mark bad">Unknown<\/span> <span class="mono">src_invented0001<\/span>/);
    expect(page).toMatch(/<span class="mark bad">Not found<\/span> “CSV exports crash every single day”/);
    expect(page).toContain(`<a href="/account/w/${ws}/sources/${src}?quote=3#seg-3">segment 4, Ana Ruiz</a>`);

    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const host = new URL(h.url).hostname;
      await context.addCookies(owner.jar.header().split('; ').map((pair) => {
        const eq = pair.indexOf('=');
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), domain: host, path: '/' };
      }));
      const tab = await context.newPage();
      for (const [name, path] of [
        ['quotes-signal', `/account/w/${ws}/signals/${verifiedId}`], ['quotes-signal-not-found', `/account/w/${ws}/signals/${fabricatedId}`],
        ['quotes-signals', `/account/w/${ws}/signals`], ['quotes-note', `/account/w/${ws}/notes/${note.id}`],
      ] as const) {
        await tab.goto(`${h.url}${path}`);
        expect(await accessibilityViolations(tab), name).toEqual([]);
        await saveScreenshot(tab, name);
      }
      await tab.goto(`${h.url}/account/w/${ws}/signals/${verifiedId}`);
      await tab.getByRole('link', { name: 'segment 2, Ana Ruiz' }).click();
      await tab.waitForURL(`${h.url}/account/w/${ws}/sources/${src}?quote=1#seg-1`);
      expect(await tab.locator('li.quoted').textContent()).toContain('takes twenty minutes');
      expect(await accessibilityViolations(tab)).toEqual([]);
      await saveScreenshot(tab, 'quotes-source-highlight');
      await tab.goto(`${h.url}/account/w/${ws}/opportunities`);
      await saveScreenshot(tab, 'quotes-opportunities');
      await tab.getByRole('link', { name: 'Excel export is slow' }).first().click();
      expect(await tab.locator('.verified-share').textContent()).toContain('1 of 3 signals (33%)');
      expect(await accessibilityViolations(tab)).toEqual([]);
      await saveScreenshot(tab, 'quotes-opportunity');
    } finally {
      await browser.close();
    }
  });
});
