import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { accessibilityViolations, launchChromium, saveScreenshot } from '@loupe/browser-testing';
import { signInWithLoggedCode } from './callback-server';
import { demoFrom, type Demo } from './cluster';
import { runTool, startProcess, until, type Started } from './process';

/**
 * Issue 44's acceptance against `npm start`, through the public interfaces only: companies imported with
 * the `loupe` CLI (a CSV) and people through the API, records whose participants' emails match their
 * domains, signals written over MCP, then get_opportunities ranked and filtered by impact, view_item of a
 * company, find_sources(company) and the Companies page in Chromium. In a second workspace the evidence
 * comes first and the CRM import after it: the same figures follow.
 */

const COMPANIES_CSV = [
  'external_id,name,domains,arr,plan,segment,stage,renewal_date,attributes.region',
  'crm-big,Zentrix,zentrix.com,500000,enterprise,enterprise,customer,2027-03-31,EMEA',
  'crm-mid,Midco,"midco.com;midco.co.uk",120000,business,mid-market,customer,2027-06-30,NA',
  'crm-small,Smallco,smallco.com,5000,starter,smb,trial,,NA',
  'crm-free,Freebie,gmail.com,1000000,enterprise,enterprise,customer,,NA',
].join('\n') + '\n';

const COMPANIES = [
  { external_id: 'crm-big', name: 'Zentrix', domains: ['zentrix.com'], arr: 500000, plan: 'enterprise', segment: 'enterprise', stage: 'customer', renewal_date: '2027-03-31', attributes: { region: 'EMEA' } },
  { external_id: 'crm-mid', name: 'Midco', domains: ['midco.com', 'midco.co.uk'], arr: 120000, plan: 'business', segment: 'mid-market', stage: 'customer', renewal_date: '2027-06-30', attributes: { region: 'NA' } },
  { external_id: 'crm-small', name: 'Smallco', domains: ['smallco.com'], arr: 5000, plan: 'starter', segment: 'smb', stage: 'trial', attributes: { region: 'NA' } },
];

/** A person at a free-mail address linked to Midco, and one at Smallco's domain whom the team places at Zentrix. */
const PEOPLE = [
  { external_id: 'contact-1', email: 'ceo.personal@gmail.com', name: 'Casey Personal', company_external_id: 'crm-mid' },
  { external_id: 'contact-2', email: 'lee@smallco.com', name: 'Lee Moved', company_external_id: 'crm-big' },
];

const THEMES = {
  sso: { type: 'need', theme: 'SAML single sign-on', title: 'SAML single sign-on through Okta', content: 'Security policy requires SAML single sign-on through Okta before we roll out to every team.' },
  export: { type: 'pain_point', theme: 'Slow CSV export', title: 'CSV export of the usage report times out', content: 'Exporting the usage report to CSV takes twenty minutes and times out once it has a few thousand rows.' },
  dark: { type: 'feature_request', theme: 'Dark mode for the dashboard', title: 'A dark mode for the dashboard', content: 'Our night-shift operators want a dark colour scheme for the dashboard; the white screen hurts at 3am.' },
} as const;
type Theme = keyof typeof THEMES;

/** One record per speaker: its title, the speaker's email, and the themes they speak about. */
const SPEAKERS: Array<{ title: string; email: string; name: string; themes: Theme[] }> = [
  { title: 'Call with Zentrix about rollout', email: 'ana@zentrix.com', name: 'Ana Zentrix', themes: ['sso'] },
  { title: 'Chat with Smallco about login', email: 'bo@smallco.com', name: 'Bo Smallco', themes: ['sso'] },
  { title: 'Email from Midco about exports', email: 'mia@midco.com', name: 'Mia Midco', themes: ['export'] },
  { title: 'Email from Casey on a personal address', email: 'ceo.personal@gmail.com', name: 'Casey Personal', themes: ['export'] },
  { title: 'Forum post from a Gmail address', email: 'random@gmail.com', name: 'Random Forum', themes: ['export', 'dark'] },
  { title: 'Call with Lee about the dashboard', email: 'lee@smallco.com', name: 'Lee Moved', themes: ['dark'] },
];

interface Opportunity { id: string; title: string; evidence_count: number; companies: number; revenue: number; segments: string[] }
interface Answer { isError?: boolean; text: string; [k: string]: any }

/** A workspace as the test drives it: its key, product, project, HTTP calls and MCP client. */
class Tenant {
  mcp!: Client;
  constructor(readonly url: string, readonly key: string, readonly productId: string, readonly projectId: string) {}
  async connect() {
    this.mcp = new Client({ name: 'e2e-companies', version: '1.0.0' });
    await this.mcp.connect(new StreamableHTTPClientTransport(new URL(`${this.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': this.key } } }));
    return this;
  }
  api(method: string, p: string, body?: unknown) {
    return fetch(`${this.url}${p}`, { method, headers: { 'x-api-key': this.key, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  }
  async call(name: string, args: Record<string, unknown>): Promise<Answer> {
    const r = await this.mcp.callTool({ name, arguments: args });
    return { ...(r.structuredContent as object), isError: r.isError as boolean | undefined, text: (r.content as Array<{ text?: string }>)[0]?.text ?? '' };
  }
  async opportunities(args: Record<string, unknown> = {}): Promise<Answer & { items: Opportunity[] }> {
    const r = await this.call('get_opportunities', { limit: 100, product_id: this.productId, ...args });
    expect(r.isError, r.text).toBeFalsy();
    return r as Answer & { items: Opportunity[] };
  }

  /** Sends one record per speaker, waits for the batch, then writes each speaker's signals on its source; answers the source and a signal of each theme. */
  async sendEvidence() {
    const run = `${Date.now()}`;
    const records = SPEAKERS.map((s, i) => ({
      _type: 'conversation', _schema_version: '1.0.0', _event_at: new Date(Date.now() - (i + 1) * 3600_000).toISOString(), _vendor_ids: { e2e: `${run}-${i}` },
      _product_id: this.productId, _project_ids: [this.projectId], _nature: 'evidence',
      _participants: [{ id: s.email, role: 'external', name: s.name, email: s.email }],
      data: { title: s.title, messages: s.themes.map((t) => ({ from: s.name, text: THEMES[t].content })) },
    }));
    const sent = await this.api('POST', '/api/v1/ingest', records);
    expect(sent.status, await sent.clone().text()).toBe(202);
    const { batchId } = (await sent.json()) as { batchId: string };
    await until('the batch to be COMPLETE', async () => ((await (await this.api('GET', `/api/v1/ingest/batches/${batchId}`)).json()) as { status: string }).status === 'COMPLETE');
    const sources = await until('the sources', async () => {
      const r = await this.call('find_sources', { limit: 100, product_id: this.productId });
      const byTitle = new Map((r.items as Array<{ id: string; title: string; status: string }>).filter((s) => s.status === 'ready').map((s) => [s.title, s.id]));
      return SPEAKERS.every((s) => byTitle.has(s.title)) ? byTitle : undefined;
    });
    const signalOf = {} as Record<Theme, string>;
    const sourceOf: Record<string, string> = {};
    const signalBy: Record<string, string> = {};
    for (const s of SPEAKERS) {
      const sourceId = sources.get(s.title)!;
      sourceOf[s.email] = sourceId;
      const r = await this.call('add_signals', {
        source_id: sourceId,
        signals: s.themes.map((t) => ({ type: THEMES[t].type, title: THEMES[t].title, content: `"${THEMES[t].content}"`, who_said_it: s.name, participant_id: s.email, theme: THEMES[t].theme })),
      });
      expect(r.isError, r.text).toBeFalsy();
      (r.signals as Array<{ id: string }>).forEach((sig, i) => {
        signalOf[s.themes[i]!] ??= sig.id;
        signalBy[`${s.email} ${s.themes[i]}`] = sig.id;
      });
    }
    // Each theme one opportunity: 3 signals about the export, 2 about single sign-on, 2 about dark mode.
    await until('the opportunities', async () => {
      const r = await this.opportunities();
      return r.pending_signals === 0 && JSON.stringify(r.items.map((o) => o.evidence_count).sort()) === '[2,2,3]';
    }, 90_000);
    const opp = {} as Record<Theme, string>;
    for (const t of Object.keys(THEMES) as Theme[]) {
      const v = await this.call('view_item', { item_type: 'signal', item_id: signalOf[t] });
      opp[t] = v.item.opportunity.id;
    }
    return { sourceOf, signalBy, opp };
  }
}

describe('companies and impact against npm start (issue 44)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: Started;
  let demo: Demo;
  let a: Tenant;
  let evidence: Awaited<ReturnType<Tenant['sendEvidence']>>;
  const companyId: Record<string, string> = {};
  const adminCli = async (...args: string[]) => {
    const r = await runTool('tools/src/admin.ts', args, { ...env, LOG_LEVEL: 'error' });
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-companies-'));
    delete process.env.DATABASE_URL;
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    service = await startProcess(env);
    demo = demoFrom(service.output());
    // A product of its own in the demo workspace, so the demo's own evidence and customers stay apart.
    const product = /Created product (\S+)/.exec(await adminCli('product', 'create', '--workspace', demo.workspaceId, '--name', 'Impact app'))![1]!;
    const project = /Created project (\S+)/.exec(await adminCli('project', 'create', '--workspace', demo.workspaceId, '--product', product, '--name', 'Impact project'))![1]!;
    a = await new Tenant(service.url, demo.key, product, project).connect();
  }, 120_000);
  afterAll(async () => {
    await a?.mcp?.close().catch(() => {});
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('companies imported with the CLI, people through the API, then the evidence: ranked and filtered by revenue and segment', async () => {
    const csv = path.join(dataDir, 'companies.csv');
    await writeFile(csv, COMPANIES_CSV);
    const upload = await runTool('tools/src/loupe.ts', ['companies', 'upload', csv], { LOUPE_URL: service.url, LOUPE_API_KEY: demo.key });
    expect(upload.code, upload.stderr).toBe(0);
    expect(upload.stdout).toContain('Done: 4 companies read; 3 created, 0 updated, 1 rejected.');
    // A free-mail domain never names a company: the row is refused, with its line.
    const rejected = (await readFile(`${csv}.rejected.ndjson`, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rejected).toEqual([expect.objectContaining({ line: 5, external_id: 'crm-free', code: 'FREE_MAIL_DOMAIN' })]);
    for (const p of PEOPLE) {
      const { external_id, ...body } = p;
      const put = await a.api('PUT', `/api/v1/people/${external_id}`, body);
      expect(put.status, await put.clone().text()).toBe(201);
    }
    const listed = (await (await a.api('GET', '/api/v1/companies?limit=50')).json()) as { companies: Array<{ external_id: string; arr: number; segment: string }> };
    expect(listed.companies.filter((c) => c.external_id.startsWith('crm-')).map((c) => [c.external_id, c.arr, c.segment]).sort()).toEqual([['crm-big', 500000, 'enterprise'], ['crm-mid', 120000, 'mid-market'], ['crm-small', 5000, 'smb']]);

    evidence = await a.sendEvidence();
    const { opp } = evidence;

    // By revenue: single sign-on (Zentrix 500,000 + Smallco 5,000), dark mode (Lee, placed at Zentrix by the
    // team although his address is Smallco's), the export (Midco 120,000; the Gmail speakers add no company).
    const byRevenue = await a.opportunities({ sort: 'revenue' });
    expect(byRevenue.items.map((o) => [o.id, o.companies, o.revenue, o.evidence_count])).toEqual([
      [opp.sso, 2, 505000, 2], [opp.dark, 1, 500000, 2], [opp.export, 1, 120000, 3],
    ]);
    const revenues = byRevenue.items.map((o) => o.revenue);
    expect(revenues).toEqual([...revenues].sort((x, y) => y - x));
    expect(byRevenue.text).toContain('most revenue first');
    const lines = byRevenue.text.split('\n');
    for (const o of byRevenue.items) {
      const line = lines.find((l) => l.includes(`\`${o.id}\``))!;
      expect(line).toContain(`${o.companies} compan${o.companies === 1 ? 'y' : 'ies'}, revenue ${o.revenue.toLocaleString('en-US')}`);
    }
    // The default order is still by evidence.
    expect((await a.opportunities()).items.map((o) => o.id)).toEqual([opp.export, expect.any(String), expect.any(String)]);

    // A segment keeps the opportunities with evidence from a company of that segment.
    const ids = async (args: Record<string, unknown>) => (await a.opportunities({ sort: 'revenue', ...args })).items.map((o) => o.id);
    expect(await ids({ segment: 'mid-market' })).toEqual([opp.export]);
    expect(await ids({ segment: 'smb' })).toEqual([opp.sso]);
    expect(await ids({ segment: 'enterprise' })).toEqual([opp.sso, opp.dark]);
    expect(await ids({ stage: 'trial' })).toEqual([opp.sso]);
    expect(await ids({ company: 'Midco' })).toEqual([opp.export]);
    for (const o of (await a.opportunities({ segment: 'smb' })).items) expect(o.segments).toContain('smb');
    const none = await a.opportunities({ segment: 'public sector' });
    expect([none.total, none.items]).toEqual([0, []]);
    expect(none.text).toContain('No opportunity has evidence from companies matching these filters');
  });

  it('free-mail addresses never make a company; a person\'s company wins over the domain', async () => {
    const { opp, signalBy } = evidence;
    const company = async (key: string) => (await a.call('view_item', { item_type: 'signal', item_id: signalBy[key] })).item.company as { external_id: string } | undefined;
    expect(await company('random@gmail.com export')).toBeUndefined();
    expect(await company('random@gmail.com dark')).toBeUndefined();
    expect(await company('ceo.personal@gmail.com export')).toMatchObject({ external_id: 'crm-mid' });
    expect(await company('lee@smallco.com dark')).toMatchObject({ external_id: 'crm-big' });
    expect(await company('bo@smallco.com sso')).toMatchObject({ external_id: 'crm-small' });
    // gmail.com is no company of the workspace, by name or id.
    const gmail = await a.call('get_opportunities', { company: 'gmail.com' });
    expect([gmail.isError, gmail.text]).toEqual([true, expect.stringMatching(/^Company not found/)]);
    // Smallco is in single sign-on only: Lee's dark-mode signal counts for Zentrix.
    const small = await a.call('view_item', { item_type: 'company', item_id: 'crm-small' });
    expect((small.item.opportunities as Array<{ id: string }>).map((o) => o.id)).toEqual([opp.sso]);
  });

  it('view_item of a company lists its opportunities and sources; find_sources(company) keeps its sources', async () => {
    const { opp, sourceOf } = evidence;
    const big = await a.call('view_item', { item_type: 'company', item_id: 'crm-big' });
    expect(big.isError, big.text).toBeFalsy();
    companyId.big = big.item.id as string;
    expect(big.item).toMatchObject({ external_id: 'crm-big', name: 'Zentrix', arr: 500000, segment: 'enterprise', stage: 'customer', renewal_date: '2027-03-31', attributes: { region: 'EMEA' }, signal_count: 2 });
    expect((big.item.opportunities as Array<{ id: string; signals: number }>).map((o) => [o.id, o.signals]).sort()).toEqual([[opp.sso, 1], [opp.dark, 1]].sort());
    expect((big.item.sources as Array<{ id: string }>).map((s) => s.id).sort()).toEqual([sourceOf['ana@zentrix.com'], sourceOf['lee@smallco.com']].sort());
    expect(big.text).toContain('# Company: Zentrix `crm-big`');
    expect(big.text).toContain('Call with Zentrix about rollout');
    expect(big.text).toContain('Call with Lee about the dashboard');
    // By our id too.
    expect((await a.call('view_item', { item_type: 'company', item_id: companyId.big })).item.external_id).toBe('crm-big');

    const mid = await a.call('find_sources', { company: 'crm-mid', limit: 100 });
    expect((mid.items as Array<{ id: string }>).map((s) => s.id).sort()).toEqual([sourceOf['mia@midco.com'], sourceOf['ceo.personal@gmail.com']].sort());
  });

  it('the Companies page shows the same in Chromium, axe clean (screenshots)', async () => {
    const { opp } = evidence;
    const titles = new Map((await a.opportunities()).items.map((o) => [o.id, o.title]));
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${service.url}/account/w/${demo.workspaceId}/companies`);
      await signInWithLoggedCode(page, 'demo@loupe.local', () => service.output());
      // The workspace's companies biggest ARR first (the demo's own customers among them, when it has some).
      const table = page.getByRole('table', { name: 'Companies, biggest ARR first' });
      await table.getByRole('link', { name: 'Smallco', exact: true }).waitFor();
      const names = (await table.getByRole('row').allInnerTexts()).map((r) => r.split(/\s/)[0]);
      expect(names.filter((n) => ['Zentrix', 'Midco', 'Smallco'].includes(n!))).toEqual(['Zentrix', 'Midco', 'Smallco']);
      expect(await accessibilityViolations(page)).toEqual([]);
      const listShot = await saveScreenshot(page, 'e2e-companies-01-list');
      expect((await stat(listShot)).size).toBeGreaterThan(0);

      await page.getByRole('link', { name: 'Zentrix', exact: true }).click();
      await page.waitForURL(`${service.url}/account/w/${demo.workspaceId}/companies/${companyId.big}`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Zentrix');
      const opportunities = page.getByRole('table', { name: 'Opportunities with signals of Zentrix, the largest share first' });
      for (const id of [opp.sso, opp.dark]) await opportunities.getByRole('link', { name: titles.get(id)!, exact: true }).waitFor();
      const sources = page.locator('section[aria-labelledby="sources-h"]');
      expect((await sources.getByRole('link').allInnerTexts()).sort()).toEqual(['Call with Lee about the dashboard', 'Call with Zentrix about rollout']);
      expect(await accessibilityViolations(page)).toEqual([]);
      const companyShot = await saveScreenshot(page, 'e2e-companies-02-company');
      expect((await stat(companyShot)).size).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('importing the companies after the evidence gives the same figures within a minute', async () => {
    const ws = /Created workspace (\S+)/.exec(await adminCli('workspace', 'create', '--name', 'Late import'))![1]!;
    const product = /Created product (\S+)/.exec(await adminCli('product', 'create', '--workspace', ws, '--name', 'Late app'))![1]!;
    const project = /Created project (\S+)/.exec(await adminCli('project', 'create', '--workspace', ws, '--product', product, '--name', 'Late project'))![1]!;
    const key = (await adminCli('key', 'create', '--workspace', ws, '--name', 'late', '--permissions', 'api:read,api:write,mcp:read,mcp:write', '--product', product)).trim().split('\n').pop()!;
    await adminCli('credits', 'grant', '--workspace', ws, '--amount', '1000');
    const late = await new Tenant(service.url, key, product, project).connect();
    try {
      const { opp } = await late.sendEvidence();
      // Before the CRM import: each domain counts as a company, no revenue.
      const before = await late.opportunities({ sort: 'revenue' });
      expect(before.items.map((o) => o.revenue)).toEqual([0, 0, 0]);

      const companies = await late.api('POST', '/api/v1/companies:batch', COMPANIES);
      expect(await companies.json()).toMatchObject({ createdCount: 3, rejectedCount: 0 });
      const people = await late.api('POST', '/api/v1/people:batch', PEOPLE);
      expect(await people.json()).toMatchObject({ createdCount: 2, rejectedCount: 0 });

      const figures = (items: Opportunity[]) => items.map((o) => [o.companies, o.revenue, o.evidence_count, [...o.segments].sort()]);
      const expected = figures((await a.opportunities({ sort: 'revenue' })).items);
      const after = await until('the late import\'s figures', async () => {
        const r = await late.opportunities({ sort: 'revenue' });
        return JSON.stringify(figures(r.items)) === JSON.stringify(expected) && r;
      }, 60_000);
      expect(after.items.map((o) => o.id)).toEqual([opp.sso, opp.dark, opp.export]);
      expect((await late.opportunities({ sort: 'revenue', segment: 'mid-market' })).items.map((o) => o.id)).toEqual([opp.export]);
      const big = await late.call('view_item', { item_type: 'company', item_id: 'crm-big' });
      expect((big.item.opportunities as Array<{ id: string }>).map((o) => o.id).sort()).toEqual([opp.sso, opp.dark].sort());
    } finally {
      await late.mcp.close().catch(() => {});
    }
  }, 150_000);
});
