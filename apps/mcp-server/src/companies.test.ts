import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { newId } from '@loupe/db';
import { updateOpportunities } from '@loupe/evidence';
import { systemClock } from '@loupe/http';
import { startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { call, connectClient, seedSource, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

// Issue 44: opportunities ranked and filtered by the companies behind them; a company viewed with its evidence.

let h: McpHarness;
let w: Workspace;
let other: Workspace;
let c: Client;
let otherClient: Client;
let semantics: SemanticsThread;
const ids: Record<string, string> = {};
let umbrellaSource: string;
let globexSource: string;
let quietSource: string;

async function company(ws: string, ext: string, name: string, domain: string, arr: number, segment: string, plan: string) {
  const id = newId('cmp');
  await h.pool.query(
    `INSERT INTO companies (id, workspace_id, external_id, name, domains, arr, segment, plan, stage, renewal_date, attributes, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'customer', '2099-03-01', '{"csm": "Rita", "seats": 40}', now(), now())`,
    [id, ws, ext, name, [domain], arr, segment, plan],
  );
  await h.pool.query('INSERT INTO company_domains (workspace_id, domain, company_id) VALUES ($1, $2, $3)', [ws, domain, id]);
  return id;
}

const sig = (title: string, content: string, who: string, theme: string) => ({ type: 'pain_point', title, content, who_said_it: who, theme });

beforeAll(async () => {
  semantics = startSemanticsThread();
  h = await startMcpServer();
  w = await seedWorkspace(h, 'Impact');
  other = await seedWorkspace(h, 'Other');
  c = await connectClient(h, { key: w.key });
  otherClient = await connectClient(h, { key: other.key });
  ids.umbrella = await company(w.workspaceId, 'crm-umbrella', 'Umbrella', 'umbrella.co', 20_000, 'SMB', 'basic');
  ids.globex = await company(w.workspaceId, 'crm-globex', 'Globex', 'globex.com', 100_000, 'Enterprise', 'pro');
  // Another workspace's company of the same name and domain never shows here.
  ids.theirs = await company(other.workspaceId, 'crm-globex', 'Globex', 'globex.com', 5, 'Enterprise', 'pro');
  umbrellaSource = await seedSource(h, w, { title: 'Umbrella call', segments: ['Exports to Excel are slow.'] });
  globexSource = await seedSource(h, w, { title: 'Globex call', segments: ['We need SAML single sign-on for exports.'] });
  quietSource = await seedSource(h, w, { title: 'Call without signals', segments: ['Exports again.'] });
  await call(c, 'add_signals', { source_id: umbrellaSource, signals: [
    sig('Quarterly export to Excel is slow', 'Exporting the quarterly report to Excel takes twenty minutes.', 'claire@umbrella.co', 'Slow export'),
    sig('CSV export times out on big reports', 'The CSV export times out once the report has thousands of rows.', 'Dan <dan@umbrella.co>', 'Slow export, timeouts'),
    sig('Export of the ledger is slow', 'Exporting the general ledger to a spreadsheet is far too slow every month.', 'claire@umbrella.co', 'Slow export'),
    sig('Large exports never finish', 'Exporting a full year of transactions to a spreadsheet never finishes in the browser.', 'kim@gmail.com', 'Slow export never finishes'),
  ] });
  await call(c, 'add_signals', { source_id: globexSource, signals: [
    sig('SAML single sign-on required', 'Security policy requires SAML single sign-on for every tool.', 'ana@globex.com', 'Single sign-on (SSO)'),
    sig('Needs Okta login', 'Procurement will only sign if users can log in through Okta.', 'bo@globex.com', 'Single sign-on (SSO) with Okta'),
  ] });
  await updateOpportunities({ pool: h.pool, semantics, clock: systemClock }, w.workspaceId, w.productId);
});
afterAll(async () => {
  await semantics?.close();
  await c?.close();
  await otherClient?.close();
  await h?.close();
});

describe('get_opportunities by impact', () => {
  it('each item carries companies and revenue, in its structured content and its line; sort by revenue, companies or growth', async () => {
    const byEvidence = await call(c, 'get_opportunities');
    expect(byEvidence.isError, byEvidence.text).toBe(false);
    expect(byEvidence.data!.items.map((o: { evidence_count: number }) => o.evidence_count)).toEqual([4, 2]);
    const exports = byEvidence.data!.items[0];
    expect(exports).toMatchObject({ companies: 1, revenue: 20_000, segments: ['SMB'], stages: ['customer'], nearest_renewal: '2099-03-01' });
    expect(byEvidence.text).toContain(`\`${exports.id}\`: 4 signals, 1 company, revenue 20,000 (SMB), renews 2099-03-01`);
    const byRevenue = await call(c, 'get_opportunities', { sort: 'revenue' });
    expect(byRevenue.data!.items.map((o: { revenue: number; companies: number }) => [o.revenue, o.companies])).toEqual([[100_000, 1], [20_000, 1]]);
    expect(byRevenue.data!.digest).toMatch(/most revenue first/);
    expect(byRevenue.text).toMatch(/2 signals, 1 company, revenue 100,000 \(Enterprise\)/);
    expect((await call(c, 'get_opportunities', { sort: 'growth' })).data!.items).toHaveLength(2);
    expect((await call(c, 'get_opportunities', { sort: 'companies' })).data!.items).toHaveLength(2);
    const bad = await call(c, 'get_opportunities', { sort: 'arr' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('sort must be one of "evidence", "companies", "revenue", "growth"');
  });

  it('filters by segment, plan and stage (any case), and by a company by external id or name', async () => {
    const revenues = async (args: Record<string, unknown>) => {
      const r = await call(c, 'get_opportunities', args);
      expect(r.isError, r.text).toBe(false);
      return r.data!.items.map((o: { revenue: number }) => o.revenue);
    };
    expect(await revenues({ segment: 'smb' })).toEqual([20_000]);
    expect(await revenues({ plan: 'PRO', sort: 'revenue' })).toEqual([100_000]);
    expect(await revenues({ stage: 'customer', sort: 'revenue' })).toEqual([100_000, 20_000]);
    expect(await revenues({ company: 'crm-globex' })).toEqual([100_000]);
    expect(await revenues({ company: 'umbrella' })).toEqual([20_000]);
    expect(await revenues({ company: ids.globex })).toEqual([100_000]);
    const none = await call(c, 'get_opportunities', { segment: 'Public sector' });
    expect(none.data).toMatchObject({ total: 0, items: [] });
    expect(none.data!.digest).toMatch(/^No opportunity has evidence from companies matching these filters/);
    const unknown = await call(c, 'get_opportunities', { company: 'Initech' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/^Company not found: no company of this workspace has the id, external id or name "Initech"/);
  });

  it("another workspace's company is not found, and its opportunities never show its ARR", async () => {
    const r = await call(otherClient, 'get_opportunities', { company: ids.globex });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^Company not found/);
    const viewed = await call(otherClient, 'view_item', { item_type: 'company', item_id: ids.globex });
    const missing = await call(otherClient, 'view_item', { item_type: 'company', item_id: 'crm-nope' });
    expect(viewed.text.replace(ids.globex!, 'ID')).toBe(missing.text.replace('crm-nope', 'ID'));
    const theirs = await call(otherClient, 'view_item', { item_type: 'company', item_id: 'crm-globex' });
    expect(theirs.data!.item).toMatchObject({ id: ids.theirs, signal_count: 0, opportunities: [], sources: [], signals: [] });
  });
});

describe('view_item company and find_sources company', () => {
  it('shows a company by external id or id: its fields and attributes, its opportunities by share, its latest sources and signals', async () => {
    const r = await call(c, 'view_item', { item_type: 'company', item_id: 'crm-umbrella' });
    expect(r.isError, r.text).toBe(false);
    const item = r.data!.item;
    expect(item).toMatchObject({
      id: ids.umbrella, external_id: 'crm-umbrella', name: 'Umbrella', domains: ['umbrella.co'], arr: 20_000, segment: 'SMB', plan: 'basic', stage: 'customer',
      renewal_date: '2099-03-01', attributes: { csm: 'Rita', seats: 40 }, signal_count: 3,
    });
    expect(item.opportunities).toEqual([expect.objectContaining({ signals: 3, evidence_count: 4, share: 0.75 })]);
    expect(item.sources).toEqual([expect.objectContaining({ id: umbrellaSource, title: 'Umbrella call', signals: 3 })]);
    expect(item.signals).toHaveLength(3);
    expect(r.text).toContain('# Company: Umbrella `crm-umbrella`');
    expect(r.text).toMatch(/\*\*ARR\*\*: 20,000/);
    expect(r.text).toContain('3 of its 4 signals (75%)');
    const signal = await call(c, 'view_item', { item_type: 'signal', item_id: item.signals[0].id });
    expect(signal.data!.item.company).toEqual({ id: ids.umbrella, external_id: 'crm-umbrella', name: 'Umbrella' });
    expect(signal.text).toContain('**Company**: Umbrella `crm-umbrella`');
    const byId = await call(c, 'view_item', { item_type: 'company', item_id: ids.umbrella! });
    expect(byId.data!.item.external_id).toBe('crm-umbrella');
    const opportunity = await call(c, 'view_item', { item_type: 'opportunity', item_id: item.opportunities[0].id });
    expect(opportunity.data!.item.evidence.filter((e: { company?: string }) => e.company === 'Umbrella')).toHaveLength(3);
    expect(opportunity.text).toMatch(/claire@umbrella\.co, Umbrella, /);
    expect(opportunity.data!.item).toMatchObject({ companies: 1, revenue: 20_000, impact: { resolved_companies: 1, segments: [{ value: 'SMB', companies: 1, revenue: 20_000 }] } });
  });

  it('find_sources(company): the sources with a signal of that company, listed or searched', async () => {
    const listed = await call(c, 'find_sources', { company: 'Globex' });
    expect(listed.isError, listed.text).toBe(false);
    expect(listed.data!.items.map((s: { id: string }) => s.id)).toEqual([globexSource]);
    const searched = await call(c, 'find_sources', { query: 'exports', company: 'crm-umbrella' });
    expect(searched.data!.items.map((s: { id: string }) => s.id)).toEqual([umbrellaSource]);
    expect((await call(c, 'find_sources', { query: 'exports' })).data!.items.map((s: { id: string }) => s.id)).toContain(quietSource);
    const unknown = await call(otherClient, 'find_sources', { company: 'Umbrella' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/^Company not found/);
  });
});

describe('hostile company arguments', () => {
  it('a NUL character is refused by name, never an internal error', async () => {
    for (const [tool, args] of [
      ['get_opportunities', { company: 'Glo\u0000bex' }], ['get_opportunities', { segment: 'S\u0000MB' }], ['find_sources', { company: '\u0000' }],
      ['view_item', { item_type: 'company', item_id: 'crm\u0000' }], ['view_item', { item_type: 'signal', item_id: 'sig_\u0000' }],
    ] as const) {
      const r = await call(c, tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(r.text, `${tool} ${JSON.stringify(args)}`).not.toMatch(/internal|unexpected/i);
      expect(r.text).toMatch(/(company|segment|item_id) has a NUL character, which no name or id holds/);
    }
  });
});
