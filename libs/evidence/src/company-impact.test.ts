import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import {
  addSignals, deleteSignals, getOpportunity, listOpportunities, moveSignals, resolveWorkspaceCompanies, updateOpportunities, updateSignals, type OpportunityRow,
} from './index';

let t: TestDatabase;
let semantics: SemanticsThread;
let now = Date.UTC(2026, 10, 1);
const clock = { now: () => now++ };

beforeAll(async () => {
  t = await createTestDatabase();
  semantics = startSemanticsThread();
});
afterAll(async () => {
  await semantics.close();
  await t.close();
});

async function workspace() {
  const ws = newId('ws');
  const prod = newId('prod');
  const src = newId('src');
  await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'W']);
  await t.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'P']);
  await t.pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call', '2026-10-01T00:00:00Z', 'ready')`,
    [src, ws, prod],
  );
  return { ws, prod, src };
}

async function company(ws: string, c: { ext: string; name: string; domains: string[]; arr?: number; segment?: string; plan?: string; stage?: string; renewal?: string }) {
  const id = newId('cmp');
  await t.pool.query(
    `INSERT INTO companies (id, workspace_id, external_id, name, domains, arr, plan, segment, stage, renewal_date, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), now())`,
    [id, ws, c.ext, c.name, c.domains, c.arr ?? null, c.plan ?? null, c.segment ?? null, c.stage ?? null, c.renewal ?? null],
  );
  for (const d of c.domains) await t.pool.query('INSERT INTO company_domains (workspace_id, domain, company_id) VALUES ($1, $2, $3)', [ws, d, id]);
  return id;
}

async function person(ws: string, ext: string, email: string | null, companyId: string | null) {
  await t.pool.query(
    'INSERT INTO people (id, workspace_id, external_id, email, company_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, now(), now())',
    [newId('per'), ws, ext, email, companyId],
  );
}

/** The team's CRM: five companies, one listing a free-mail domain, and Bill, whom the CRM puts at Hooli although he writes from initech.com. */
async function crm(ws: string) {
  const ids = {
    globex: await company(ws, { ext: 'crm-globex', name: 'Globex', domains: ['globex.com'], arr: 100_000, segment: 'Enterprise', plan: 'pro', stage: 'customer', renewal: '2027-01-15' }),
    umbrella: await company(ws, { ext: 'crm-umbrella', name: 'Umbrella', domains: ['umbrella.co'], arr: 20_000, segment: 'SMB', plan: 'basic', stage: 'trial', renewal: '2026-12-01' }),
    soylent: await company(ws, { ext: 'crm-soylent', name: 'Soylent', domains: ['soylent.com'], arr: 50_000, segment: 'Enterprise', plan: 'pro', stage: 'customer', renewal: '2026-06-01' }),
    hooli: await company(ws, { ext: 'crm-hooli', name: 'Hooli', domains: ['hooli.xyz'], arr: 7_000, segment: 'Mid-market', plan: 'pro', stage: 'customer' }),
    initech: await company(ws, { ext: 'crm-initech', name: 'Initech', domains: ['initech.com'], arr: 999_999 }),
    freemail: await company(ws, { ext: 'crm-free', name: 'Free mail Inc', domains: [], arr: 1_000_000 }),
  };
  // A company may not list a free-mail domain (the companies API refuses it); even if one is stored, it never resolves.
  await t.pool.query('INSERT INTO company_domains (workspace_id, domain, company_id) VALUES ($1, $2, $3)', [ws, 'gmail.com', ids.freemail]);
  await person(ws, 'crm-bill', 'bill@initech.com', ids.hooli);
  await person(ws, 'crm-kim', 'kim@gmail.com', null);
  return ids;
}

const SIGNALS: Array<[theme: string, title: string, content: string, who: string]> = [
  ['Slow export', 'Quarterly export to Excel is slow', 'Exporting the quarterly report to Excel takes twenty minutes.', 'ana@globex.com'],
  ['Slow export, timeouts', 'CSV export times out on big reports', 'The CSV export times out once the report has thousands of rows.', 'claire@umbrella.co'],
  ['Slow export of large reports', 'Splits reports to export them faster', 'They split the report by region and export six spreadsheets because one big export is too slow.', 'tom@soylent.com'],
  ['Slow export', 'Export speed blocks month-end close', 'Finance waits half an hour for the data export at month end; the download is far too slow.', 'gavin@hooli.xyz'],
  ['Slow export never finishes', 'Large exports never finish', 'Exporting a full year of transactions to a spreadsheet never finishes in the browser.', 'kim@gmail.com'],
  ['Slow export', 'Export of the ledger is slow', 'Exporting the general ledger to a spreadsheet is far too slow every month.', 'Ana <ana@globex.com>'],
  ['Single sign-on (SSO)', 'SAML single sign-on required', 'Security policy requires SAML single sign-on for every tool.', 'bill@initech.com'],
  ['Single sign-on (SSO) with Okta', 'Needs Okta login', 'Procurement will only sign if users can log in through Okta.', 'tom@soylent.com'],
  ['Single sign-on (SSO)', 'Separate passwords annoy IT', 'IT keeps asking when people can sign in with the company identity provider instead of separate passwords.', 'ana@globex.com'],
  ['Single sign-on (SSO)', 'Would pay for SSO', 'They would pay extra for single sign-on with Google Workspace and Azure AD.', 'gavin@hooli.xyz'],
  ['Single sign-on (SSO) with Active Directory', 'Login through Active Directory', 'Our admins want every employee to authenticate through Active Directory with SAML.', 'lee@acme.org'],
  ['Mobile app crashes', 'Mobile app crashes on photo upload', 'The mobile app crashed twice when uploading a photo of a receipt.', 'gavin@hooli.xyz'],
  ['Mobile app crashes on Android', 'Android app closes during upload', 'On Android the app force closes while uploading receipt photos.', 'lee@acme.org'],
  ['Mobile app crashes', 'Upload from phone freezes', 'Uploading a receipt photo from the iPhone freezes the app and it quits.', 'kim@gmail.com'],
  ['Mobile app crashes on iOS', 'App crash after update', 'Since the last update the iOS app crashes as soon as I open the camera.', 'claire@umbrella.co'],
  ['Mobile app crashes lose data', 'Crashes lose my work', 'The app keeps crashing on my phone and every crash loses the receipt I was adding.', 'crm-bill'],
];

async function addAll(ws: string, src: string) {
  const items = SIGNALS.map(([theme, title, content, who]) => ({
    type: 'pain_point', title, content, theme, ...(who.includes('<') ? { whoSaidIt: who } : { participantId: who, whoSaidIt: who.includes('@') ? who : 'Bill' }),
  }));
  return (await addSignals(t.pool, { workspaceId: ws, sourceId: src, items }, clock)).results.map((r) => r.id);
}

const deps = () => ({ pool: t.pool, semantics, clock });
const all = async (ws: string, prod: string, options: Parameters<typeof listOpportunities>[4] = {}) =>
  (await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 }, options)).items;
const byTitle = (items: OpportunityRow[], word: string) => items.find((o) => o.title.toLowerCase().includes(word) || o.keywords.includes(word))!;
const figures = (o: OpportunityRow) => ({
  title: o.title, evidence: o.evidenceCount, companies: o.uniqueCompanyCount, revenue: o.revenue, segments: o.segments, plans: o.plans, stages: o.stages,
  nearestRenewal: o.nearestRenewal, newest: o.newestEvidenceAt?.toISOString(), impact: o.impact, subtitle: o.subtitle,
});

describe('evidence resolves to companies', () => {
  it("a person's explicit company wins over the domain; free mail never makes a company; another workspace's companies never resolve", async () => {
    const { ws, src } = await workspace();
    const ids = await crm(ws);
    const theirs = await workspace();
    await crm(theirs.ws);
    const lone = await workspace();
    await company(theirs.ws, { ext: 'x', name: 'Acme of theirs', domains: ['acme.org'], arr: 5 });
    const signalIds = await addAll(ws, src);
    const loneIds = await addAll(lone.ws, lone.src);
    const { rows } = await t.pool.query<{ id: string; company_id: string | null; company: string | null }>('SELECT id, company_id, company FROM signals WHERE id = ANY($1)', [signalIds]);
    const of = new Map(rows.map((r) => [r.id, r]));
    const at = (i: number) => of.get(signalIds[i]!)!;
    expect(at(0)).toMatchObject({ company_id: ids.globex, company: 'globex.com' });
    expect(at(5)).toMatchObject({ company_id: ids.globex }); // "Ana <ana@globex.com>" in who_said_it
    expect(at(6)).toMatchObject({ company_id: ids.hooli, company: 'initech.com' }); // Bill's email is at Initech; the CRM says Hooli
    expect(at(15)).toMatchObject({ company_id: ids.hooli }); // by the person's external id
    expect(at(4)).toMatchObject({ company_id: null, company: null }); // kim@gmail.com
    expect(at(10)).toMatchObject({ company_id: null, company: 'acme.org' }); // acme.org is another workspace's company
    const { rows: lonely } = await t.pool.query('SELECT count(*)::int AS n FROM signals WHERE id = ANY($1) AND company_id IS NOT NULL', [loneIds]);
    expect(lonely[0].n).toBe(0);
  });

  it("a speaker named as the source's participant resolves through that participant's email; an ambiguous name does not", async () => {
    const w = await workspace();
    const globex = await company(w.ws, { ext: 'crm-globex', name: 'Globex', domains: ['globex.com'], arr: 100_000 });
    await t.pool.query(
      `UPDATE sources SET participants = $2 WHERE id = $1`,
      [w.src, JSON.stringify([
        { id: 'ana@globex.com', role: 'external', name: 'Ana Ruiz', email: 'ana@globex.com' },
        { id: 'p-1', role: 'external', name: 'Sam' }, { id: 'p-2', role: 'internal', name: 'Sam' },
      ])],
    );
    const { results } = await addSignals(t.pool, { workspaceId: w.ws, sourceId: w.src, items: [
      { type: 'need', title: 'Faster exports', content: 'Exports must be faster', whoSaidIt: 'ana ruiz' },
      { type: 'need', title: 'Dark mode', content: 'We want dark mode', whoSaidIt: 'Sam' },
    ] }, clock);
    const { rows } = await t.pool.query('SELECT id, participant_id, company, company_id FROM signals WHERE id = ANY($1) ORDER BY title DESC', [results.map((r) => r.id)]);
    expect(rows.map(({ participant_id, company, company_id }) => ({ participant_id, company, company_id }))).toEqual([
      { participant_id: 'ana@globex.com', company: 'globex.com', company_id: globex },
      { participant_id: null, company: null, company_id: null },
    ]);
  });

  it('an edit that changes the speaker resolves again, and the signal is placed again', async () => {
    const { ws, src } = await workspace();
    const ids = await crm(ws);
    const [first] = await addAll(ws, src);
    await t.pool.query('UPDATE signals SET cluster_pending = false WHERE id = $1', [first]);
    await updateSignals(t.pool, ws, [{ id: first!, participantId: 'crm-bill', whoSaidIt: null }], clock);
    const { rows } = await t.pool.query('SELECT company_id, cluster_pending FROM signals WHERE id = $1', [first]);
    expect(rows[0]).toEqual({ company_id: ids.hooli, cluster_pending: true });
  });
});

describe('the impact of opportunities', () => {
  it('counts each company once, sums its ARR once, splits by segment, plan and stage, with the nearest renewal and the newest evidence', async () => {
    const { ws, prod, src } = await workspace();
    await crm(ws);
    await addAll(ws, src);
    await updateOpportunities(deps(), ws, prod);
    const items = await all(ws, prod);
    const exp = byTitle(items, 'export');
    // Globex twice, Umbrella, Soylent, Hooli; kim@gmail.com is no company.
    expect(exp).toMatchObject({ evidenceCount: 6, uniqueCompanyCount: 4, revenue: 177_000, segments: ['Enterprise', 'Mid-market', 'SMB'], plans: ['basic', 'pro'], stages: ['customer', 'trial'], nearestRenewal: '2026-12-01' });
    expect(exp.subtitle).toMatch(/^6 signals from 4 companies/);
    expect(exp.impact).toEqual({
      resolved_companies: 4,
      segments: [{ value: 'Enterprise', companies: 2, revenue: 150_000 }, { value: 'SMB', companies: 1, revenue: 20_000 }, { value: 'Mid-market', companies: 1, revenue: 7_000 }],
      plans: [{ value: 'pro', companies: 3, revenue: 157_000 }, { value: 'basic', companies: 1, revenue: 20_000 }],
      stages: [{ value: 'customer', companies: 3, revenue: 157_000 }, { value: 'trial', companies: 1, revenue: 20_000 }],
    });
    const { rows } = await t.pool.query('SELECT max(s.created_at) AS newest FROM signals s JOIN opportunity_signals os ON os.signal_id = s.id WHERE os.opportunity_id = $1', [exp.id]);
    expect(exp.newestEvidenceAt).toEqual(rows[0].newest);
    // Bill (Hooli by the CRM), Soylent, Globex, Hooli again, and acme.org, a domain no company lists: 4.
    const sso = byTitle(items, 'sso');
    expect(sso).toMatchObject({ evidenceCount: 5, uniqueCompanyCount: 4, revenue: 157_000, nearestRenewal: '2027-01-15' });
    const crash = byTitle(items, 'crash');
    expect(crash).toMatchObject({ uniqueCompanyCount: 3, revenue: 27_000, segments: ['Mid-market', 'SMB'] });
    expect(crash.nearestRenewal).toBe('2026-12-01');
  });

  it('sorts by evidence, companies and revenue, and filters by segment, plan, stage and company', async () => {
    const { ws, prod, src } = await workspace();
    const ids = await crm(ws);
    await addAll(ws, src);
    await updateOpportunities(deps(), ws, prod);
    const titles = (items: OpportunityRow[]) => items.map((o) => (o.title.toLowerCase().includes('export') ? 'export' : o.revenue === 157_000 ? 'sso' : 'crash'));
    expect(titles(await all(ws, prod, { sort: 'revenue' }))).toEqual(['export', 'sso', 'crash']);
    expect(titles(await all(ws, prod)).slice(0, 1)).toEqual(['export']);
    expect((await all(ws, prod, { sort: 'companies' }))[2]!.uniqueCompanyCount).toBe(3);
    expect(titles(await all(ws, prod, { sort: 'revenue', filter: { segment: 'smb' } }))).toEqual(['export', 'crash']);
    expect(titles(await all(ws, prod, { sort: 'revenue', filter: { stage: 'TRIAL', plan: 'basic' } }))).toEqual(['export', 'crash']);
    expect(titles(await all(ws, prod, { sort: 'revenue', filter: { companyIds: [ids.soylent] } }))).toEqual(['export', 'sso']);
    expect(await all(ws, prod, { filter: { segment: 'nobody' } })).toEqual([]);
    const page = await listOpportunities(t.pool, ws, prod, { limit: 1, offset: 0 }, { sort: 'revenue', filter: { segment: 'Enterprise' } });
    expect(page.total).toBe(2);
    const grown = await all(ws, prod, { sort: 'growth', now: new Date(now) });
    expect(grown).toHaveLength(3);
  });

  it('importing the companies after the evidence gives the same figures, once re-resolved', async () => {
    const before = await workspace();
    await crm(before.ws);
    await addAll(before.ws, before.src);
    await updateOpportunities(deps(), before.ws, before.prod);
    const late = await workspace();
    await addAll(late.ws, late.src);
    await updateOpportunities(deps(), late.ws, late.prod);
    expect((await all(late.ws, late.prod)).every((o) => o.revenue === 0)).toBe(true);
    await crm(late.ws);
    const result = await resolveWorkspaceCompanies(t.pool, late.ws, clock, { slice: 4 });
    expect(result).toMatchObject({ signals: SIGNALS.length, changed: 12, opportunities: 3 });
    const sorted = async (w: { ws: string; prod: string }) => (await all(w.ws, w.prod, { sort: 'revenue' })).map(figures);
    expect(await sorted(late)).toEqual(await sorted(before));
    // Again: nothing changes.
    expect(await resolveWorkspaceCompanies(t.pool, late.ws, clock)).toMatchObject({ changed: 0, opportunities: 0 });
  });

  it("a company's new ARR, its deletion, a move and a delete keep the figures true", async () => {
    const { ws, prod, src } = await workspace();
    const ids = await crm(ws);
    const signalIds = await addAll(ws, src);
    await updateOpportunities(deps(), ws, prod);
    await t.pool.query('UPDATE companies SET arr = 200000 WHERE id = $1', [ids.globex]);
    await resolveWorkspaceCompanies(t.pool, ws, clock);
    expect(byTitle(await all(ws, prod), 'export').revenue).toBe(277_000);
    await t.pool.query('DELETE FROM companies WHERE id = $1', [ids.umbrella]);
    await resolveWorkspaceCompanies(t.pool, ws, clock);
    // claire@umbrella.co still counts as a domain; her ARR does not.
    expect(byTitle(await all(ws, prod), 'export')).toMatchObject({ uniqueCompanyCount: 4, revenue: 257_000, segments: ['Enterprise', 'Mid-market'] });
    const ada = { userId: 'usr_ada', email: 'ada@example.test' };
    const sso = byTitle(await all(ws, prod), 'sso');
    // Tom (Soylent) moves from the export opportunity to SSO, where Soylent already is: export loses Soylent's ARR, SSO's is unchanged.
    await moveSignals(t.pool, ws, [signalIds[2]!], sso.id, ada, clock);
    expect(byTitle(await all(ws, prod), 'export')).toMatchObject({ uniqueCompanyCount: 3, revenue: 207_000 });
    expect((await getOpportunity(t.pool, ws, sso.id))!.revenue).toBe(257_000);
    await deleteSignals(t.pool, ws, [signalIds[0]!, signalIds[5]!], ada, clock);
    expect(byTitle(await all(ws, prod), 'export')).toMatchObject({ uniqueCompanyCount: 2, revenue: 7_000 });
  });
});
