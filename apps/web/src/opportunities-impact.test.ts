import { readFile } from 'node:fs/promises';
import { newId } from '@loupe/db';
import { addSignals, refreshImpact } from '@loupe/evidence';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, saveScreenshot } from '@loupe/browser-testing';
import { addCompany, addSource, workspaceWith } from './test/fixtures';
import { Person, signInToAccount, startWebServer, type WebHarness } from './test/harness';

// Issue 44: the console's opportunities by the customers behind them, on a real database: companies
// with ARR, segments and plans, signals resolved to them (company_id by SQL: resolution is tested in
// libs/evidence), opportunities placed by SQL with their impact computed by libs/evidence's refreshImpact.
let h: WebHarness;
const clock = { now: () => Date.now() };

beforeAll(async () => {
  h = await startWebServer();
});
afterAll(() => h.close());

const COMPANIES = [
  { key: 'globex', name: 'Globex', domain: 'globex.com', arr: '120000.00', plan: 'Scale', segment: 'Enterprise', stage: 'customer', renewal: '2027-03-01' },
  { key: 'hooli', name: 'Hooli', domain: 'hooli.xyz', arr: '250000', plan: 'Enterprise', segment: 'Enterprise', stage: 'customer', renewal: '2027-01-15' },
  { key: 'initech', name: 'Initech', domain: 'initech.com', arr: '48000.50', plan: 'Team', segment: 'Mid-market', stage: 'trial', renewal: null },
  { key: 'umbrella', name: 'Umbrella', domain: 'umbrella.co', arr: null, plan: null, segment: 'SMB', stage: 'churned', renewal: null },
] as const;
type CompanyKey = (typeof COMPANIES)[number]['key'];

/** A title a spreadsheet would run as a formula, with a comma and quotes to quote. */
const FORMULA_TITLE = '=HYPERLINK("https://evil.test","Click, here")';

/**
 * A workspace with the four companies, one call and four opportunities:
 *  - Dark mode: 5 signals from free-mail speakers (no company);
 *  - Slow exports: Globex twice, Umbrella (no ARR), and soylent.com (a domain of no company): 3 companies, 120,000;
 *  - Single sign-on: Hooli and Initech: 2 companies, 298,000.50;
 *  - the formula title: Initech: 1 company, 48,000.50.
 */
async function seeded(members: Array<[Person, 'owner' | 'admin' | 'member']>) {
  const { ws, prod } = await workspaceWith(h, members);
  const ids = {} as Record<CompanyKey, string>;
  for (const c of COMPANIES) {
    ids[c.key] = await addCompany(h, ws, { key: c.key, name: c.name, domains: [c.domain], arr: c.arr, plan: c.plan, segment: c.segment, stage: c.stage, renewal: c.renewal });
  }
  const src = await addSource(h, ws, prod, 'Quarterly review');
  const signals = async (items: Array<{ title: string; who: string; company?: CompanyKey }>) => {
    const { results } = await addSignals(h.pool, {
      workspaceId: ws, sourceId: src,
      items: items.map((i) => ({ type: 'pain_point', title: i.title, content: `${i.title}, said on the call.`, whoSaidIt: i.who, participantId: i.who })),
    }, clock);
    for (const [n, r] of results.entries()) {
      const company = items[n]!.company;
      await h.pool.query('UPDATE signals SET company_id = $2, cluster_pending = false WHERE id = $1', [r.id, company ? ids[company] : null]);
    }
    return results.map((r) => r.id);
  };
  const opportunity = async (title: string, signalIds: string[]) => {
    const id = newId('opp');
    await h.pool.query(
      `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at)
       VALUES ($1, $2, $3, $4, '', 'pain_point', $5, 0, now(), now())`,
      [id, ws, prod, title, signalIds.length],
    );
    for (const s of signalIds) await h.pool.query('INSERT INTO opportunity_signals (opportunity_id, signal_id) VALUES ($1, $2)', [id, s]);
    return id;
  };
  const darkSignals = await signals(Array.from({ length: 5 }, (_, i) => ({ title: `Wants dark mode ${i + 1}`, who: `fan${i}@gmail.com` })));
  const exportSignals = await signals([
    { title: 'Quarterly export to Excel is slow', who: 'ana@globex.com', company: 'globex' },
    { title: 'CSV export times out', who: 'bob@globex.com', company: 'globex' },
    { title: 'Large exports never finish', who: 'claire@umbrella.co', company: 'umbrella' },
    { title: 'Exports of a year fail', who: 'kim@soylent.com' },
  ]);
  const ssoSignals = await signals([
    { title: 'Would pay for SSO', who: 'gavin@hooli.xyz', company: 'hooli' },
    { title: 'SAML single sign-on required', who: 'bill@initech.com', company: 'initech' },
  ]);
  const formulaSignals = await signals([{ title: 'A link in the export', who: 'peter@initech.com', company: 'initech' }]);
  const opp = {
    dark: await opportunity('Dark mode', darkSignals),
    exports: await opportunity('Slow exports', exportSignals),
    sso: await opportunity('Single sign-on (SSO)', ssoSignals),
    formula: await opportunity(FORMULA_TITLE, formulaSignals),
  };
  expect(await refreshImpact(h.pool, ws, Object.values(opp), new Date())).toBe(4);
  return { ws, prod, ids, opp, src, signals: { export: exportSignals[0]!, soylent: exportSignals[3]! } };
}

/** The opportunities of a list page, in order. */
const titlesOf = (html: string) => [...html.matchAll(/<a class="strong" href="\/account\/w\/[^/]+\/opportunities\/opp_[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]!);

/** RFC 4180, as a spreadsheet reads it: quoted fields, doubled quotes, CRLF lines. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (ch === '"') quoted = false; else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(cell); cell = ''; } else if (ch === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; } else cell += ch;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

describe('opportunities by customer impact', () => {
  let owner: Person;
  let member: Person;
  let stranger: Person;
  beforeAll(async () => {
    owner = new Person(h, 'owner@impact.test');
    member = new Person(h, 'member@impact.test');
    stranger = new Person(h, 'stranger@impact.test');
    for (const p of [owner, member, stranger]) await signInToAccount(h, p);
  });

  it('sorts by evidence (the default), companies, revenue or growth; each row shows its companies, revenue and nearest renewal', async () => {
    const s = await seeded([[owner, 'owner'], [member, 'member']]);
    const list = async (query = '') => (await (await member.get(`/account/w/${s.ws}/opportunities${query}`)).text());
    const byEvidence = await list();
    expect(titlesOf(byEvidence)).toEqual(['Dark mode', 'Slow exports', 'Single sign-on (SSO)', '=HYPERLINK(&quot;https://evil.test&quot;,&quot;Click, here&quot;)']);
    expect(byEvidence).toContain('4 opportunities, most evidence first.');
    // Slow exports: 4 signals, 3 companies, 120,000 (Globex's ARR once; Umbrella has none), renews with Globex.
    expect(byEvidence).toMatch(/>Slow exports<\/a>\s*<p class="meta">Updated <time[^>]+>[^<]+<\/time><\/p><\/td>\s*<td class="num">4<\/td>\s*<td class="num">3<\/td>\s*<td class="num nowrap">120,000<p class="meta">renews <time datetime="2027-03-01">1 Mar 2027<\/time><\/p><\/td>/);
    expect(byEvidence).toMatch(/>Single sign-on \(SSO\)<\/a>\s*<p class="meta">Updated <time[^>]+>[^<]+<\/time><\/p><\/td>\s*<td class="num">2<\/td>\s*<td class="num">2<\/td>\s*<td class="num nowrap">298,000.50<p class="meta">renews <time datetime="2027-01-15">15 Jan 2027<\/time><\/p><\/td>/);
    // Dark mode: free-mail speakers, no company: no revenue rather than a misleading 0.
    expect(byEvidence).toMatch(/>Dark mode<\/a>\s*<p class="meta">Updated <time[^>]+>[^<]+<\/time><\/p><\/td>\s*<td class="num">5<\/td>\s*<td class="num">0<\/td>\s*<td class="num nowrap">—<\/td>/);
    const byRevenue = await list('?sort=revenue');
    expect(titlesOf(byRevenue)).toEqual(['Single sign-on (SSO)', 'Slow exports', '=HYPERLINK(&quot;https://evil.test&quot;,&quot;Click, here&quot;)', 'Dark mode']);
    expect(byRevenue).toContain('4 opportunities, most revenue first.');
    expect(byRevenue).toContain('<option value="revenue" selected>Most revenue</option>');
    expect(titlesOf(await list('?sort=companies'))).toEqual(['Slow exports', 'Single sign-on (SSO)', '=HYPERLINK(&quot;https://evil.test&quot;,&quot;Click, here&quot;)', 'Dark mode']);
    expect(titlesOf(await list('?sort=growth'))).toEqual(['Dark mode', 'Slow exports', 'Single sign-on (SSO)', '=HYPERLINK(&quot;https://evil.test&quot;,&quot;Click, here&quot;)']);
    // An order that is not one of them is the default.
    expect(titlesOf(await list('?sort=drop'))).toEqual(titlesOf(byEvidence));
  });

  it('filters by segment, plan and stage, offering the values present; keeps the order and filters across pages and in the CSV link', async () => {
    const s = await seeded([[owner, 'owner']]);
    const list = async (query: string) => (await (await owner.get(`/account/w/${s.ws}/opportunities?${query}`)).text());
    const all = await list('');
    expect(all).toMatch(/<select id="o-segment" name="segment"><option value="">All segments<\/option><option value="Enterprise">Enterprise<\/option><option value="Mid-market">Mid-market<\/option><option value="SMB">SMB<\/option><\/select>/);
    expect(all).toMatch(/<select id="o-plan" name="plan"><option value="">All plans<\/option><option value="Enterprise">Enterprise<\/option><option value="Scale">Scale<\/option><option value="Team">Team<\/option><\/select>/);
    expect(all).toMatch(/<select id="o-stage" name="stage"><option value="">All stages<\/option><option value="churned">churned<\/option><option value="customer">customer<\/option><option value="trial">trial<\/option><\/select>/);
    const enterprise = await list('segment=Enterprise&sort=revenue');
    expect(titlesOf(enterprise)).toEqual(['Single sign-on (SSO)', 'Slow exports']);
    expect(enterprise).toContain('2 opportunities with evidence from these companies, most revenue first.');
    expect(enterprise).toContain(`href="/account/w/${s.ws}/opportunities.csv?product=${s.prod}&amp;sort=revenue&amp;segment=Enterprise"`);
    expect(titlesOf(await list('segment=Mid-market'))).toEqual(['Single sign-on (SSO)', '=HYPERLINK(&quot;https://evil.test&quot;,&quot;Click, here&quot;)']);
    expect(titlesOf(await list('plan=Scale'))).toEqual(['Slow exports']);
    expect(titlesOf(await list('stage=churned'))).toEqual(['Slow exports']);
    expect(titlesOf(await list('segment=Enterprise&stage=trial'))).toEqual(['Single sign-on (SSO)']);
    expect(await list('segment=SMB&plan=Team')).toContain('No opportunity has evidence from companies of this segment and plan.');
    // A value no company behind the product has is no filter at all.
    expect(titlesOf(await list('segment=Unknown'))).toHaveLength(4);
  });

  it("an opportunity's page: its companies, revenue, the split by segment, plan and stage, nearest renewal, newest evidence; each piece of evidence names its company", async () => {
    const s = await seeded([[owner, 'owner']]);
    const html = await (await owner.get(`/account/w/${s.ws}/opportunities/${s.opp.exports}`)).text();
    expect(html).toMatch(/<span class="label">Companies<\/span><span class="value">3<\/span><span class="muted small">2 from your CRM import, 1 by email domain<\/span>/);
    expect(html).toMatch(/<span class="label">Revenue<\/span><span class="value">120,000<\/span><span class="muted small">nearest renewal 1 Mar 2027<\/span>/);
    expect(html).toMatch(/<span class="label">Evidence<\/span><span class="value">4<\/span><span class="muted small">signals, the newest <time datetime="[^"]+">\d{1,2} \w{3} \d{4}<\/time><\/span>/);
    const table = (name: string) => new RegExp(`<caption class="visually-hidden">Its companies by ${name}</caption>([\\s\\S]*?)</table>`).exec(html)?.[1] ?? '';
    const cells = (name: string) => [...table(name).matchAll(/<tr><td>([^<]+)<\/td>((?:<td class="num">[^<]+<\/td>)+)<\/tr>/g)]
      .map((m) => [m[1], ...[...m[2]!.matchAll(/>([^<]+)</g)].map((n) => n[1])]);
    expect(cells('segment')).toEqual([['Enterprise', '1', '120,000'], ['SMB', '1', '—']]);
    expect(cells('plan')).toEqual([['Scale', '1', '120,000'], ['Not given', '1', '—']]);
    expect(cells('stage')).toEqual([['customer', '1'], ['churned', '1']]);
    expect(html).not.toContain("from the speakers' email domains");
    // The evidence: a resolved speaker names their company, linked; the others their email domain.
    expect(html).toContain(`ana@globex.com · <a href="/account/w/${s.ws}/companies/${s.ids.globex}">Globex</a>`);
    expect(html).toContain(`claire@umbrella.co · <a href="/account/w/${s.ws}/companies/${s.ids.umbrella}">Umbrella</a>`);
    // A speaker's address already says its domain: it is not repeated.
    expect(html).toContain('kim@soylent.com · <a');
    expect(html).not.toContain('kim@soylent.com · soylent.com');
    // Without a company of the CRM import: what to do, not zeros.
    const dark = await (await owner.get(`/account/w/${s.ws}/opportunities/${s.opp.dark}`)).text();
    expect(dark).toContain('None of its evidence comes from a company of your CRM import yet.');
    expect(dark).toMatch(/<span class="label">Revenue<\/span><span class="value">—<\/span>/);
  });

  it('the signals list and a signal name the company a speaker resolved to, linked; the domain when none', async () => {
    const s = await seeded([[owner, 'owner']]);
    const list = await (await owner.get(`/account/w/${s.ws}/signals`)).text();
    expect(list).toContain(`ana@globex.com<br><span class="small"><a href="/account/w/${s.ws}/companies/${s.ids.globex}">Globex</a></span>`);
    expect(list).toContain('kim@soylent.com<br><span class="muted small">soylent.com</span>');
    const one = await (await owner.get(`/account/w/${s.ws}/signals/${s.signals.export}`)).text();
    expect(one).toContain(`<dt>Company</dt><dd><a href="/account/w/${s.ws}/companies/${s.ids.globex}">Globex</a></dd>`);
    const domainOnly = await (await owner.get(`/account/w/${s.ws}/signals/${s.signals.soylent}`)).text();
    expect(domainOnly).toContain('<dt>Who said it</dt><dd>kim@soylent.com</dd>');
    expect(domainOnly).not.toContain('<dt>Company</dt>');
  });

  it('downloads the opportunities as CSV in the same order and filters, quoted, formulas neutralised; a page at a time past the first', async () => {
    const s = await seeded([[owner, 'owner']]);
    const res = await owner.get(`/account/w/${s.ws}/opportunities.csv?product=${s.prod}&sort=revenue`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const today = new Date().toISOString().slice(0, 10);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="opportunities-acme-app-${today}.csv"`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // the byte order mark Excel reads UTF-8 by
    const body = bytes.toString('utf8');
    expect(body.startsWith('\uFEFFtitle,evidence,companies,revenue,segments,plans,stages,nearest_renewal,newest_evidence_at,signals_last_7_days,url\r\n')).toBe(true);
    // The formula comes out as text: an apostrophe first, then quoted with its quotes doubled (it has a comma).
    expect(body).toContain(`\r\n"'=HYPERLINK(""https://evil.test"",""Click, here"")",1,1,48000.50,Mid-market,Team,trial,,`);
    const rows = parseCsv(body.slice(1));
    expect(rows[0]).toHaveLength(11);
    expect(rows.slice(1).map((r) => r[0])).toEqual(['Single sign-on (SSO)', 'Slow exports', `'${FORMULA_TITLE}`, 'Dark mode']);
    const exports = rows.find((r) => r[0] === 'Slow exports')!;
    expect(exports.slice(1, 8)).toEqual(['4', '3', '120000', 'Enterprise; SMB', 'Scale', 'churned; customer', '2027-03-01']);
    expect(exports[8]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(exports[9]).toBe('4');
    expect(exports[10]).toBe(`${h.url}/account/w/${s.ws}/opportunities/${s.opp.exports}`);
    expect(rows.find((r) => r[0] === 'Single sign-on (SSO)')!.slice(1, 4)).toEqual(['2', '2', '298000.50']);
    expect(rows.find((r) => r[0] === 'Dark mode')!.slice(1, 8)).toEqual(['5', '0', '0', '', '', '', '']);
    // The filters of the page: only the Enterprise ones.
    const enterprise = parseCsv((await (await owner.get(`/account/w/${s.ws}/opportunities.csv?product=${s.prod}&sort=revenue&segment=Enterprise`)).text()).replace(/^\uFEFF/, ''));
    expect(enterprise.slice(1).map((r) => r[0])).toEqual(['Single sign-on (SSO)', 'Slow exports']);
    // Without a product, the first; a product not of the workspace is not found.
    expect(parseCsv((await (await owner.get(`/account/w/${s.ws}/opportunities.csv`)).text()).replace(/^\uFEFF/, ''))).toHaveLength(5);
    expect((await owner.get(`/account/w/${s.ws}/opportunities.csv?product=prod_elsewhere`)).status).toBe(404);

    // More than a page of the export (500): every opportunity once, in order.
    const many = await workspaceWith(h, [[owner, 'owner']]);
    await h.pool.query(
      `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at)
       SELECT 'opp_many_' || lpad(n::text, 4, '0') || '_' || $1, $1, $2, 'Opportunity ' || n, '', 'need', n, 0, now(), now() FROM generate_series(1, 1234) n`,
      [many.ws, many.prod],
    );
    const big = parseCsv((await (await owner.get(`/account/w/${many.ws}/opportunities.csv`)).text()).replace(/^\uFEFF/, '')).slice(1);
    expect(big).toHaveLength(1234);
    expect(big.map((r) => Number(r[1]))).toEqual(Array.from({ length: 1234 }, (_, i) => 1234 - i));
  });

  it("another workspace's member gets 404 for the CSV and the pages; A's product under their own workspace is not found", async () => {
    const a = await seeded([[owner, 'owner']]);
    for (const path of [`opportunities.csv?product=${a.prod}`, 'opportunities.csv', `opportunities?product=${a.prod}&sort=revenue&segment=Enterprise`, `opportunities/${a.opp.exports}`]) {
      const res = await stranger.get(`/account/w/${a.ws}/${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html, path).not.toContain('Slow exports');
      expect(html, path).not.toContain('Globex');
    }
    const own = await workspaceWith(h, [[stranger, 'owner']]);
    const theirs = await stranger.get(`/account/w/${own.ws}/opportunities.csv?product=${a.prod}`);
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).not.toContain('Slow exports');
    // Signed out: the sign-in, never the file.
    const anonymous = await fetch(`${h.url}/account/w/${a.ws}/opportunities.csv?product=${a.prod}`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toMatch(/^\/account\/sign-in\?return_to=/);
  });

  it('in Chromium: order by revenue, filter by segment, download the CSV, open an opportunity and its company; no accessibility violations (screenshots)', async () => {
    const s = await seeded([[owner, 'owner']]);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      const host = new URL(h.url).hostname;
      await context.addCookies(owner.jar.header().split('; ').map((pair) => {
        const eq = pair.indexOf('=');
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), domain: host, path: '/' };
      }));
      const page = await context.newPage();
      await page.goto(`${h.url}/account/w/${s.ws}/opportunities`);
      await page.getByLabel('Order').selectOption('revenue');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/sort=revenue/);
      const rows = page.getByRole('table', { name: 'Opportunities of Acme app, most revenue first' }).getByRole('row');
      expect(await rows.count()).toBe(5);
      expect(await rows.nth(1).innerText()).toMatch(/^1\s+Single sign-on \(SSO\)\s+Updated [^\t]+\s+2\s+2\s+298,000\.50\s+renews 15 Jan 2027\s+\+2\s+\+2 in 30 days\s+0%\s+0 of 2$/);
      // Every column in view at a laptop's width: the table does not scroll sideways.
      expect(await page.locator('.table-wrap').evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'impact-01-opportunities');

      await page.getByLabel('Segment').selectOption('Enterprise');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/segment=Enterprise/);
      expect(await rows.count()).toBe(3);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^opportunities-acme-app-\d{4}-\d\d-\d\d\.csv$/);
      const csv = parseCsv((await readFile((await download.path())!, 'utf8')).replace(/^\uFEFF/, ''));
      expect(csv.slice(1).map((r) => r[0])).toEqual(['Single sign-on (SSO)', 'Slow exports']);
      expect(await accessibilityViolations(page)).toEqual([]);

      await page.getByRole('link', { name: 'Slow exports' }).click();
      await page.waitForURL(`${h.url}/account/w/${s.ws}/opportunities/${s.opp.exports}`);
      expect(await page.getByRole('table', { name: 'Its companies by segment' }).getByRole('row').allInnerTexts())
        .toEqual([expect.stringMatching(/^Segment\s+Companies\s+ARR$/), expect.stringMatching(/^Enterprise\s+1\s+120,000$/), expect.stringMatching(/^SMB\s+1\s+—$/)]);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'impact-02-opportunity');
      await page.getByRole('link', { name: 'Globex' }).first().click();
      await page.waitForURL(`${h.url}/account/w/${s.ws}/companies/${s.ids.globex}`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Globex');
    } finally {
      await browser.close();
    }
  });
});
