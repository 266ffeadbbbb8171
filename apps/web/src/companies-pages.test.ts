import { newId } from '@loupe/db';
import { addSignals } from '@loupe/evidence';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, saveScreenshot } from '@loupe/browser-testing';
import { addCompany, addSource, workspaceWith, type SeedCompany } from './test/fixtures';
import { Person, signInToAccount, startWebServer, type WebHarness } from './test/harness';

// Issue 44: the console's Companies pages, on a real database: companies, people, sources and signals
// resolved to them (signals.company_id, set here by SQL: resolution is libs/evidence's and tested there).
let h: WebHarness;
const clock = { now: () => Date.now() };

beforeAll(async () => {
  h = await startWebServer();
});
afterAll(() => h.close());

const COMPANIES: SeedCompany[] = [
  { key: 'globex', name: 'Globex', domains: ['globex.com', 'globex.io'], arr: '120000.00', plan: 'Scale', segment: 'Enterprise', stage: 'customer', renewal: '2027-03-01', attributes: { region: 'EMEA', seats: 420, strategic: true } },
  { key: 'hooli', name: 'Hooli', domains: ['hooli.xyz'], arr: '250000', plan: 'Enterprise', segment: 'Enterprise', stage: 'customer', renewal: '2027-01-15' },
  { key: 'initech', name: 'Initech', domains: ['initech.com'], arr: '48000.50', plan: 'Team', segment: 'Mid-market', stage: 'trial', renewal: null },
  { key: 'umbrella', name: 'Umbrella <Corp>', domains: ['umbrella.co'], arr: null, plan: null, segment: 'SMB', stage: 'churned', renewal: null },
];

/** Signals from `src`, each resolved to a company (by SQL), recorded `minutesAgo` apart. */
async function addResolvedSignals(ws: string, src: string, items: Array<{ title: string; who: string; company: string | null; minutesAgo: number }>) {
  const { results } = await addSignals(h.pool, {
    workspaceId: ws, sourceId: src,
    items: items.map((i) => ({ type: 'pain_point', title: i.title, content: `${i.title}: said on the call.`, whoSaidIt: i.who, participantId: i.who })),
  }, clock);
  for (const [n, r] of results.entries()) {
    await h.pool.query(`UPDATE signals SET company_id = $2, created_at = now() - make_interval(mins => $3) WHERE id = $1`, [r.id, items[n]!.company, items[n]!.minutesAgo]);
  }
  return results.map((r) => r.id);
}

/** An opportunity holding `signalIds` (placed by SQL: clustering is libs/evidence's). */
async function addOpportunity(ws: string, prod: string, title: string, signalIds: string[]) {
  const id = newId('opp');
  await h.pool.query(
    `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at)
     VALUES ($1, $2, $3, $4, '', 'pain_point', $5, 0, now(), now())`,
    [id, ws, prod, title, signalIds.length],
  );
  for (const s of signalIds) await h.pool.query('INSERT INTO opportunity_signals (opportunity_id, signal_id) VALUES ($1, $2)', [id, s]);
  return id;
}

/** A workspace with the four companies above, people, two calls and signals resolved to them, grouped into two opportunities. */
async function seeded(members: Array<[Person, 'owner' | 'admin' | 'member']>) {
  const { ws, prod } = await workspaceWith(h, members);
  const ids: Record<string, string> = {};
  for (const c of COMPANIES) ids[c.key] = await addCompany(h, ws, c);
  await h.pool.query(
    `INSERT INTO people (id, workspace_id, external_id, email, name, company_id, created_at, updated_at)
     VALUES ($1, $3, 'p-ana', 'ana@globex.com', 'Ana Ruiz', $5, now(), now()), ($2, $3, 'p-sam', 'sam@contractor.dev', 'Sam Lee', $5, now(), now()),
            ($4, $3, 'p-bill', 'bill@initech.com', NULL, $6, now(), now())`,
    [newId('per'), newId('per'), ws, newId('per'), ids.globex, ids.initech],
  );
  const weekly = await addSource(h, ws, prod, 'Weekly call with Globex', '2026-11-20T10:00:00Z');
  const review = await addSource(h, ws, prod, 'Quarterly review', '2026-11-25T10:00:00Z');
  const [exportSlow, exportTimeout] = await addResolvedSignals(ws, weekly, [
    { title: 'Quarterly export to Excel is slow', who: 'ana@globex.com', company: ids.globex!, minutesAgo: 30 },
    { title: 'CSV export times out', who: 'sam@contractor.dev', company: ids.globex!, minutesAgo: 20 },
  ]);
  const [sso, umbrellaExport, umbrellaSso, initechSso] = await addResolvedSignals(ws, review, [
    { title: 'SAML single sign-on required', who: 'ana@globex.com', company: ids.globex!, minutesAgo: 10 },
    { title: 'Large exports never finish', who: 'claire@umbrella.co', company: ids.umbrella!, minutesAgo: 8 },
    { title: 'Needs Okta login', who: 'claire@umbrella.co', company: ids.umbrella!, minutesAgo: 6 },
    { title: 'Would pay for SSO', who: 'bill@initech.com', company: ids.initech!, minutesAgo: 4 },
  ]);
  const [unresolved] = await addResolvedSignals(ws, review, [{ title: 'Likes the new charts', who: 'kim@gmail.com', company: null, minutesAgo: 2 }]);
  const exports = await addOpportunity(ws, prod, 'Slow exports', [exportSlow!, exportTimeout!, umbrellaExport!]);
  const singleSignOn = await addOpportunity(ws, prod, 'Single sign-on (SSO)', [sso!, umbrellaSso!, initechSso!, unresolved!]);
  return { ws, prod, ids, weekly, review, exports, singleSignOn, signals: { exportSlow: exportSlow!, sso: sso! } };
}

/** The companies of a list page, in order. */
const namesOf = (html: string) => [...html.matchAll(/<a class="strong" href="\/account\/w\/[^/]+\/companies\/cmp_[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]!);

describe('companies pages', () => {
  let owner: Person;
  let member: Person;
  let stranger: Person;
  beforeAll(async () => {
    owner = new Person(h, 'owner@companies.test');
    member = new Person(h, 'member@companies.test');
    stranger = new Person(h, 'stranger@companies.test');
    for (const p of [owner, member, stranger]) await signInToAccount(h, p);
  });

  it('the empty state says how to import companies; the menu lists the page among the evidence', async () => {
    const { ws } = await workspaceWith(h, [[owner, 'owner']]);
    const html = await (await owner.get(`/account/w/${ws}/companies`)).text();
    expect(html).toContain('No companies yet: import them from your CRM with <code>npm run loupe -- companies upload companies.csv</code> or the API');
    expect(html).toMatch(/<a href="\/account\/w\/[^"]+\/opportunities">Opportunities<\/a><\/li>\s*<li><a href="\/account\/w\/[^"]+\/companies" aria-current="page">Companies<\/a>/);
  });

  it('lists companies biggest ARR first with their evidence and opportunities; searches by name or domain, filters by segment and stage, sorts by evidence', async () => {
    const { ws } = await seeded([[owner, 'owner'], [member, 'member']]);
    const html = await (await member.get(`/account/w/${ws}/companies`)).text();
    expect(namesOf(html)).toEqual(['Hooli', 'Globex', 'Initech', 'Umbrella &lt;Corp&gt;']);
    expect(html).toContain('4 companies, biggest ARR first.');
    // Globex: its ARR as people write it, its renewal, 3 signals in 2 opportunities.
    expect(html).toMatch(/>Globex<\/a>\s*<p class="meta">globex\.com · globex\.io<\/p><\/td>\s*<td>Enterprise<p class="meta">Scale plan<\/p><\/td>\s*<td>customer<\/td>\s*<td class="num">120,000<\/td>\s*<td class="nowrap"><time datetime="2027-03-01">1 Mar 2027<\/time><\/td>\s*<td class="num">3<\/td>\s*<td class="num">2<\/td>/);
    expect(html).toContain('<td class="num">48,000.50</td>');
    expect(html).not.toContain('<Corp>');
    const search = async (query: string) => namesOf(await (await member.get(`/account/w/${ws}/companies?${query}`)).text());
    expect(await search('q=glob')).toEqual(['Globex']);
    expect(await search('q=INITECH.COM')).toEqual(['Initech']);
    expect(await search('q=claire%40umbrella.co')).toEqual(['Umbrella &lt;Corp&gt;']);
    expect(await search('q=100%25')).toEqual([]); // LIKE's wildcards are words here
    expect(await search('segment=Enterprise')).toEqual(['Hooli', 'Globex']);
    expect(await search('stage=churned')).toEqual(['Umbrella &lt;Corp&gt;']);
    expect(await search('segment=Enterprise&stage=trial')).toEqual([]);
    expect(await search('sort=evidence')).toEqual(['Globex', 'Umbrella &lt;Corp&gt;', 'Initech', 'Hooli']);
    // A segment the workspace does not have is no filter at all.
    expect(await search('segment=Unknown')).toHaveLength(4);
    expect(await (await member.get(`/account/w/${ws}/companies?q=nothing-like-it`)).text()).toContain('No company matches. Try other words, or remove a filter.');
  });

  it('pages by cursor in both orders: every company once, in order, those without an ARR last', async () => {
    const { ws } = await workspaceWith(h, [[owner, 'owner']]);
    const expected: Array<{ name: string; arr: number | null; evidence: number }> = [];
    const src = await addSource(h, ws, `prod_${ws}`, 'A call', '2026-11-20T10:00:00Z');
    for (let i = 0; i < 60; i++) {
      const arr = i % 4 === 0 ? null : (i % 7) * 1000; // ties and missing values on purpose
      const name = `Company ${String(i).padStart(2, '0')}`;
      const id = await addCompany(h, ws, { key: `c${i}`, name, domains: [], arr: arr === null ? null : String(arr), plan: null, segment: null, stage: null, renewal: null });
      const evidence = i % 3;
      if (evidence) await addResolvedSignals(ws, src, Array.from({ length: evidence }, (_, n) => ({ title: `Remark ${i}.${n}`, who: 'x@example.org', company: id, minutesAgo: n })));
      expected.push({ name, arr, evidence });
    }
    const walk = async (sort: string) => {
      const names: string[] = [];
      let next: string | undefined = `/account/w/${ws}/companies${sort ? `?sort=${sort}` : ''}`;
      for (let pages = 0; next && pages < 10; pages++) {
        const html = await (await owner.get(next)).text();
        names.push(...namesOf(html));
        next = /<a href="([^"]+)">Next page<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, '&');
      }
      return names;
    };
    const byArr = await walk('');
    expect(byArr).toHaveLength(60);
    expect(new Set(byArr).size).toBe(60);
    const arrOf = new Map(expected.map((e) => [e.name, e.arr]));
    const arrs = byArr.map((n) => arrOf.get(n)!);
    expect(arrs.slice(0, 45).every((a) => a !== null)).toBe(true);
    expect(arrs.slice(45).every((a) => a === null)).toBe(true);
    expect(arrs.slice(0, 45)).toEqual([...arrs.slice(0, 45)].sort((a, b) => b! - a!));
    const byEvidence = await walk('evidence');
    expect(new Set(byEvidence).size).toBe(60);
    const evidenceOf = new Map(expected.map((e) => [e.name, e.evidence]));
    expect(byEvidence.map((n) => evidenceOf.get(n)!)).toEqual(expected.map((e) => e.evidence).sort((a, b) => b - a));
    // A cursor that is not ours shows the first page.
    expect(namesOf(await (await owner.get(`/account/w/${ws}/companies?after=arr~x~1`)).text())).toEqual(byArr.slice(0, 25));
  });

  it("a company's page: its fields and attributes, domains, people, the opportunities it appears in, its latest sources and signals", async () => {
    const s = await seeded([[owner, 'owner']]);
    const res = await owner.get(`/account/w/${s.ws}/companies/${s.ids.globex}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Globex</h1>');
    expect(html).toMatch(/<span class="label">ARR<\/span><span class="value">120,000<\/span><span class="muted small">renews 1 Mar 2027<\/span>/);
    expect(html).toMatch(/<span class="label">Evidence<\/span><span class="value">3<\/span><span class="muted small">signals from 2 sources<\/span>/);
    expect(html).toContain('<dt>Your id</dt><dd class="mono">crm-globex</dd>');
    expect(html).toContain('<dt>Domains</dt><dd>globex.com, globex.io</dd>');
    expect(html).toContain('<dt>region</dt><dd>EMEA</dd>');
    expect(html).toContain('<dt>seats</dt><dd>420</dd>');
    expect(html).toContain('<dt>strategic</dt><dd>yes</dd>');
    expect(html).toContain('Ana Ruiz <span class="muted small">ana@globex.com</span>');
    expect(html).toContain('Sam Lee <span class="muted small">sam@contractor.dev</span>');
    // Its opportunities, the largest share first: 2 of the 3 signals of Slow exports, 1 of the 4 of SSO.
    expect(html).toMatch(new RegExp(`href="/account/w/${s.ws}/opportunities/${s.exports}">Slow exports</a></td>\\s*<td class="num">2</td>\\s*<td class="num">3</td>[\\s\\S]*href="/account/w/${s.ws}/opportunities/${s.singleSignOn}">Single sign-on \\(SSO\\)</a></td>\\s*<td class="num">1</td>\\s*<td class="num">4</td>`));
    // Its sources and signals, newest first, linked.
    expect(html).toMatch(new RegExp(`href="/account/w/${s.ws}/sources/${s.review}">Quarterly review</a>[\\s\\S]*1 signal of it[\\s\\S]*href="/account/w/${s.ws}/sources/${s.weekly}">Weekly call with Globex</a>[\\s\\S]*2 signals of it`));
    const titles = [...html.matchAll(/href="\/account\/w\/[^/]+\/signals\/sig_[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
    expect(titles).toEqual(['SAML single sign-on required', 'CSV export times out', 'Quarterly export to Excel is slow']);
    expect(html).not.toContain('Needs Okta login');
    // A company without evidence says how evidence comes to it.
    const hooli = await (await owner.get(`/account/w/${s.ws}/companies/${s.ids.hooli}`)).text();
    expect(hooli).toContain('No evidence is matched to this company yet.');
    expect(hooli).toContain('No people linked to it.');
    const missing = await owner.get(`/account/w/${s.ws}/companies/cmp_missing`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('This company does not exist in this workspace');
  });

  it("another workspace's member: 404 on A's pages, and A's company does not exist under their own workspace", async () => {
    const a = await seeded([[owner, 'owner']]);
    for (const path of ['companies', `companies/${a.ids.globex}`, 'companies?q=globex']) {
      const res = await stranger.get(`/account/w/${a.ws}/${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toContain('Globex');
    }
    const own = await workspaceWith(h, [[stranger, 'owner']]);
    const theirs = await stranger.get(`/account/w/${own.ws}/companies/${a.ids.globex}`);
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).not.toContain('Globex');
    const list = await (await stranger.get(`/account/w/${own.ws}/companies?q=globex`)).text();
    expect(list).toContain('No companies yet');
    expect(list).not.toContain('Globex');
  });

  it('in Chromium: search, filter and sort the list, open a company, follow its links; no accessibility violations (screenshots)', async () => {
    const s = await seeded([[owner, 'owner']]);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const host = new URL(h.url).hostname;
      await context.addCookies(owner.jar.header().split('; ').map((pair) => {
        const eq = pair.indexOf('=');
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), domain: host, path: '/' };
      }));
      const page = await context.newPage();
      await page.goto(`${h.url}/account/w/${s.ws}/opportunities`);
      await page.locator('nav.sections').getByRole('link', { name: 'Companies' }).click();
      await page.waitForURL(`${h.url}/account/w/${s.ws}/companies`);
      const rows = page.getByRole('table', { name: 'Companies, biggest ARR first' }).getByRole('row');
      expect(await rows.count()).toBe(5);
      // Every column in view at a laptop's width: the table does not scroll sideways.
      expect(await page.locator('.table-wrap').evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'companies-01-list');

      await page.getByLabel('Name or domain').fill('globex.io');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/q=globex\.io/);
      expect(await rows.count()).toBe(2);
      await page.getByRole('link', { name: 'Clear' }).click();
      await page.getByLabel('Segment').selectOption('Enterprise');
      await page.getByLabel('Order').selectOption('evidence');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/sort=evidence/);
      const evidenceRows = page.getByRole('table', { name: 'Companies, most evidence first' }).getByRole('row');
      expect(await evidenceRows.allInnerTexts()).toEqual([expect.stringContaining('Company'), expect.stringMatching(/^Globex/), expect.stringMatching(/^Hooli/)]);
      expect(await accessibilityViolations(page)).toEqual([]);

      await page.getByRole('link', { name: 'Globex', exact: true }).click();
      await page.waitForURL(`${h.url}/account/w/${s.ws}/companies/${s.ids.globex}`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Globex');
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'companies-02-company');
      await page.getByRole('table', { name: 'Opportunities with signals of Globex, the largest share first' }).getByRole('link', { name: 'Slow exports' }).click();
      await page.waitForURL(`${h.url}/account/w/${s.ws}/opportunities/${s.exports}`);
      await page.goBack();
      await page.getByRole('link', { name: 'SAML single sign-on required' }).click();
      await page.waitForURL(`${h.url}/account/w/${s.ws}/signals/${s.signals.sso}`);
    } finally {
      await browser.close();
    }
  });
});
