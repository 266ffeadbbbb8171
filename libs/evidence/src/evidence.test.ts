import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import {
  addSignals, BUILT_IN_SIGNAL_TYPES, createSignalType, ensureSignalTypes, getOpportunity, getSignal, listOpportunities, listSignalsOfSource,
  listSignalTypes, setSignalTypeActive, SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError, updateOpportunities, updateSignals,
  CLUSTERING_METHOD, deleteSignals, editSignal, listRecentSignals, listSignalChanges, moveSignals, OpportunityNotFoundError, opportunityGrowth,
} from './index';
import { startSemanticsThread, type SemanticsThread } from '@loupe/semantics';

let t: TestDatabase;
let now = Date.UTC(2026, 10, 1);
const clock = { now: () => now++ };

async function workspace() {
  const ws = newId('ws');
  const prod = newId('prod');
  await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'W']);
  await t.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'P']);
  const src = newId('src');
  await t.pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call', now(), 'ready')`,
    [src, ws, prod],
  );
  return { ws, prod, src };
}

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

describe('signal types', () => {
  it('inserts the built-ins once per workspace; custom types join them; inactive ones are filtered on request', async () => {
    const { ws } = await workspace();
    await Promise.all([ensureSignalTypes(t.pool, ws), ensureSignalTypes(t.pool, ws)]);
    await ensureSignalTypes(t.pool, ws);
    const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM signal_types WHERE workspace_id = $1', [ws]);
    expect(rows[0]!.n).toBe(BUILT_IN_SIGNAL_TYPES.length);
    for (const b of BUILT_IN_SIGNAL_TYPES) expect(b.description.length).toBeGreaterThan(10);
    const custom = await createSignalType(t.pool, ws, { key: 'Churn risk', name: 'Churn risk', description: 'A sign the customer may leave.' });
    expect(custom).toMatchObject({ key: 'churn_risk', builtIn: false, active: true });
    await expect(createSignalType(t.pool, ws, { key: 'churn_risk', name: 'x', description: 'y' })).rejects.toThrow(/already has a signal type "churn_risk"/);
    expect(await setSignalTypeActive(t.pool, ws, 'feedback', false)).toBe(true);
    expect(await setSignalTypeActive(t.pool, ws, 'nope', false)).toBe(false);
    const active = (await listSignalTypes(t.pool, ws, { activeOnly: true })).map((x) => x.key);
    expect(active).toContain('churn_risk');
    expect(active).not.toContain('feedback');
    expect((await listSignalTypes(t.pool, ws)).map((x) => x.key)).toContain('feedback');
    const other = await workspace();
    expect((await listSignalTypes(t.pool, other.ws)).map((x) => x.key)).not.toContain('churn_risk');
  });
});

describe('signals', () => {
  it('built-in types; add is replay-safe; the product comes from the source', async () => {
    const { ws, prod, src } = await workspace();
    expect((await listSignalTypes(t.pool, ws)).map((x) => x.key)).toEqual(expect.arrayContaining(['need', 'problem', 'pain_point', 'feedback', 'quote', 'feature_request']));
    const items = [{ type: 'Pain point', title: 'Slow exports', content: 'Exports take 20 minutes.' }, { type: 'quote', title: 'Finance hates it', content: '"Our finance team hates it"' }];
    const first = await addSignals(t.pool, { workspaceId: ws, sourceId: src, items }, clock);
    expect(first.results.map((r) => r.reused)).toEqual([false, false]);
    expect(first.productIds).toEqual([prod]);
    const again = await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: [{ ...items[0]!, content: '  exports TAKE 20 minutes. ' }] }, clock);
    expect(again.results).toEqual([{ id: first.results[0]!.id, reused: true, quotes: [], quotesVerified: 'no_quote' }]);
  });

  it('all or nothing: one unknown type stores none, and the error lists the active types', async () => {
    const { ws, src } = await workspace();
    await setSignalTypeActive(t.pool, ws, 'quote', false);
    const attempt = addSignals(t.pool, { workspaceId: ws, sourceId: src, items: [{ type: 'need', title: 'a', content: 'b' }, { type: 'quote', title: 'c', content: 'd' }] }, clock);
    await expect(attempt).rejects.toBeInstanceOf(UnknownSignalTypeError);
    await expect(attempt).rejects.toThrow(/^Unknown signal type "quote": use one of .*need \(Need\)/);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM signals WHERE workspace_id = $1', [ws]);
    expect(rows[0].n).toBe(0);
  });

  it('all or nothing inside the transaction: an item the database refuses rolls back the ones before it', async () => {
    const { ws, src } = await workspace();
    const attempt = addSignals(t.pool, { workspaceId: ws, sourceId: src, items: [
      { type: 'need', title: 'fine', content: 'a perfectly good signal' },
      { type: 'Feature Request', title: 'bad', content: 'text with a NUL \u0000 byte' },
    ] }, clock);
    await expect(attempt).rejects.toThrow();
    expect(await listSignalsOfSource(t.pool, ws, src)).toEqual([]);
  });

  it('matches types by key or name in any case, keeps input order, and reads signals back only in their workspace', async () => {
    const { ws, src } = await workspace();
    const { results } = await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: [
      { type: 'FEATURE REQUEST', title: 'b', content: 'second', participantId: 'ana@globex.com', createdAt: new Date(Date.UTC(2025, 0, 2)) },
      { type: 'pain_point', title: 'a', content: 'first', createdAt: new Date(Date.UTC(2025, 0, 1)) },
    ] }, clock);
    const one = await getSignal(t.pool, ws, results[0]!.id);
    expect(one).toMatchObject({ type: 'feature_request', typeName: 'Feature request', title: 'b', participantId: 'ana@globex.com', sourceId: src });
    expect(one!.createdAt.toISOString()).toBe('2025-01-02T00:00:00.000Z');
    expect((await listSignalsOfSource(t.pool, ws, src)).map((x) => x.content)).toEqual(['first', 'second']);
    const other = await workspace();
    expect(await getSignal(t.pool, other.ws, results[0]!.id)).toBeUndefined();
    expect(await listSignalsOfSource(t.pool, other.ws, src)).toEqual([]);
  });

  it('another workspace\'s source is refused exactly like a missing one', async () => {
    const mine = await workspace();
    const theirs = await workspace();
    const a = addSignals(t.pool, { workspaceId: mine.ws, sourceId: theirs.src, items: [{ type: 'need', title: 'a', content: 'b' }] }, clock);
    await expect(a).rejects.toBeInstanceOf(SourceNotFoundError);
    const msgA = await a.catch((e: Error) => e.message.replace(theirs.src, 'ID'));
    const msgB = await addSignals(t.pool, { workspaceId: mine.ws, sourceId: 'src_nope', items: [{ type: 'need', title: 'a', content: 'b' }] }, clock).catch((e: Error) => e.message.replace('src_nope', 'ID'));
    expect(msgA).toBe(msgB);
  });

  it('updates all or nothing; null clears, omitted stays', async () => {
    const { ws, src } = await workspace();
    const { results } = await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: [{ type: 'need', title: 'a', content: 'b', whoSaidIt: 'Ana' }] }, clock);
    const id = results[0]!.id;
    await expect(updateSignals(t.pool, ws, [{ id, title: 'changed' }, { id: 'sig_nope', title: 'x' }], clock)).rejects.toBeInstanceOf(SignalNotFoundError);
    expect((await t.pool.query('SELECT title FROM signals WHERE id = $1', [id])).rows[0].title).toBe('a');
    await updateSignals(t.pool, ws, [{ id, title: 'changed', whoSaidIt: null, type: 'problem' }], clock);
    const { rows } = await t.pool.query('SELECT s.title, s.content, s.who_said_it, t.key FROM signals s JOIN signal_types t ON t.id = s.type_id WHERE s.id = $1', [id]);
    expect(rows[0]).toEqual({ title: 'changed', content: 'b', who_said_it: null, key: 'problem' });
    const err = await updateSignals(t.pool, ws, [{ id: 'sig_nope' }], clock).catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^Signal sig_nope does not exist or you are not allowed to access it/);
    const other = await workspace();
    await expect(updateSignals(t.pool, other.ws, [{ id, title: 'stolen' }], clock)).rejects.toBeInstanceOf(SignalNotFoundError);
    expect((await getSignal(t.pool, ws, id))!.title).toBe('changed');
  });
});

// The fixture and its expected grouping, written before the clustering code: every theme in one
// opportunity, no two themes merged, each one-off alone. The themes are what an AI client writes when
// add_signals asks it for one (3–6 words, the same words for the same problem, as the tool says).
// Without themes the word vectors alone must still never merge two themes.
const FIXTURE: Array<[group: string, title: string, content: string, who: string, theme: string]> = [
  ['onboarding', 'New users get lost during setup', 'Half of our new hires gave up during the setup wizard; they did not know which step came next.', 'ana@globex.com', 'Onboarding confusion'],
  ['onboarding', 'Onboarding checklist is confusing', 'The onboarding checklist asks for things in the wrong order, so people skip it.', 'claire@umbrella.co', 'Onboarding confusion: checklist'],
  ['onboarding', 'Needed a call to get started', 'We could not get started on our own and had to book a call with support to finish onboarding.', 'tom@soylent.com', 'Onboarding confusion'],
  ['onboarding', 'First week is overwhelming', 'New accounts see every feature at once in the first week and do not know where to begin.', 'bill@initech.com', 'Onboarding confusion'],
  ['onboarding', 'Wants a guided tour for beginners', 'A guided tour for first-time users would have saved our team days of confusion when getting started.', 'lee@acme.org', 'Onboarding confusion: needs a tour'],
  ['export', 'Quarterly export to Excel is slow', 'Exporting the quarterly report to Excel takes twenty minutes.', 'ana@globex.com', 'Slow export'],
  ['export', 'CSV export times out on big reports', 'The CSV export times out once the report has thousands of rows.', 'claire@umbrella.co', 'Slow export, timeouts'],
  ['export', 'Splits reports to export them faster', 'They split the report by region and export six spreadsheets because one big export is too slow.', 'tom@soylent.com', 'Slow export of large reports'],
  ['export', 'Export speed blocks month-end close', 'Finance waits half an hour for the data export at month end; the download is far too slow.', 'gavin@hooli.xyz', 'Slow export'],
  ['export', 'Large exports never finish', 'Exporting a full year of transactions to a spreadsheet never finishes in the browser.', 'kim@gmail.com', 'Slow export never finishes'],
  ['sso', 'SAML single sign-on required', 'Security policy requires SAML single sign-on for every tool.', 'bill@initech.com', 'Single sign-on (SSO)'],
  ['sso', 'Needs Okta login', 'Procurement will only sign if users can log in through Okta.', 'tom@soylent.com', 'Single sign-on (SSO) with Okta'],
  ['sso', 'Separate passwords annoy IT', 'IT keeps asking when people can sign in with the company identity provider instead of separate passwords.', 'ana@globex.com', 'Single sign-on (SSO)'],
  ['sso', 'Would pay for SSO', 'They would pay extra for single sign-on with Google Workspace and Azure AD.', 'gavin@hooli.xyz', 'Single sign-on (SSO)'],
  ['sso', 'Login through Active Directory', 'Our admins want every employee to authenticate through Active Directory with SAML.', 'lee@acme.org', 'Single sign-on (SSO) with Active Directory'],
  ['crash', 'Mobile app crashes on photo upload', 'The mobile app crashed twice when uploading a photo of a receipt.', 'gavin@hooli.xyz', 'Mobile app crashes'],
  ['crash', 'Android app closes during upload', 'On Android the app force closes while uploading receipt photos.', 'lee@acme.org', 'Mobile app crashes on Android'],
  ['crash', 'Upload from phone freezes', 'Uploading a receipt photo from the iPhone freezes the app and it quits.', 'kim@gmail.com', 'Mobile app crashes'],
  ['crash', 'App crash after update', 'Since the last update the iOS app crashes as soon as I open the camera.', 'claire@umbrella.co', 'Mobile app crashes on iOS'],
  ['crash', 'Crashes lose my work', 'The app keeps crashing on my phone and every crash loses the receipt I was adding.', 'bill@initech.com', 'Mobile app crashes lose data'],
  ['pricing', 'Price per seat too high', 'The price per seat is too expensive for a team of our size; we cannot justify the cost.', 'tom@soylent.com', 'Price too high'],
  ['pricing', 'Wants a cheaper plan', 'A cheaper plan for small teams would let us buy it; the current pricing is out of our budget.', 'kim@gmail.com', 'Price too high for small teams'],
  ['pricing', 'Annual discount missing', 'Finance asked for a discount on annual billing before they renew the subscription.', 'ana@globex.com', 'Price: annual discount'],
  ['pricing', 'Pricing page is unclear', 'Nobody could tell from the pricing page how much we would pay once we add more users.', 'gavin@hooli.xyz', 'Price unclear'],
  ['pricing', 'Cost went up at renewal', 'Our renewal quote was forty percent more expensive than last year, which is hard to accept.', 'lee@acme.org', 'Price too high at renewal'],
  ['slack', 'Wants Slack notifications', 'The team wants a notification in Slack whenever a report is ready.', 'claire@umbrella.co', 'Slack integration'],
  ['slack', 'Share to a Slack channel', 'Sharing a dashboard straight to a Slack channel would save us copying links around.', 'bill@initech.com', 'Slack integration: sharing'],
  ['slack', 'Slack integration keeps disconnecting', 'The Slack integration disconnects every few days and alerts stop arriving in our channels.', 'tom@soylent.com', 'Slack integration disconnects'],
  ['slack', 'Approve from Slack', 'Managers would like to approve expenses from a Slack message without opening the app.', 'ana@globex.com', 'Slack integration: approvals'],
  ['slack', 'Slack bot for reminders', 'A Slack bot that reminds people in their channel to submit receipts would help adoption.', 'gavin@hooli.xyz', 'Slack integration: reminders'],
  ['dark mode', 'Wants dark mode', 'Several designers asked for a dark theme because the white screen hurts their eyes at night.', 'kim@gmail.com', 'Dark mode request'],
  ['invoice', 'Invoice address cannot be changed', 'We moved offices and there is no way to change the billing address printed on our invoices.', 'lee@acme.org', 'Editable invoice billing address'],
  ['timezone', 'Dates shown in the wrong time zone', 'Every timestamp in the audit log is shown in UTC instead of our local time zone.', 'claire@umbrella.co', 'Local time zone for timestamps'],
];

async function productWithFixture(order: number[] = FIXTURE.map((_, i) => i), withThemes = true) {
  const { ws, prod, src } = await workspace();
  const items = order.map((i) => {
    const [, title, content, who, theme] = FIXTURE[i]!;
    return { type: i % 3 ? 'pain_point' : 'need', title, content, whoSaidIt: who, participantId: who, theme: withThemes ? theme : undefined };
  });
  const { results } = await addSignals(t.pool, { workspaceId: ws, sourceId: src, items }, clock);
  const groupOf = new Map(results.map((r, k) => [r.id, FIXTURE[order[k]!]![0]]));
  return { ws, prod, src, groupOf };
}

/** Each opportunity as the sorted fixture groups of its signals. */
async function grouping(ws: string, prod: string, groupOf: Map<string, string>): Promise<string[][]> {
  const page = await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 });
  const out: string[][] = [];
  for (const o of page.items) {
    const detail = await getOpportunity(t.pool, ws, o.id, { limit: 100, offset: 0 });
    out.push(detail!.evidence.map((e) => groupOf.get(e.id)!).sort());
  }
  return out.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

const EXPECTED = [...new Set(FIXTURE.map((f) => f[0]))]
  .map((g) => FIXTURE.filter((f) => f[0] === g).map(() => g))
  .sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));

describe('opportunities', () => {
  let semantics: SemanticsThread;
  beforeAll(() => {
    semantics = startSemanticsThread();
  });
  afterAll(() => semantics.close());
  const deps = () => ({ pool: t.pool, semantics, clock });

  it('group signals by what they mean: each theme in one opportunity, no two themes merged, one-offs alone', async () => {
    const { ws, prod, groupOf } = await productWithFixture();
    const result = await updateOpportunities(deps(), ws, prod);
    expect(result).toMatchObject({ embedded: FIXTURE.length, reclustered: true, opportunities: EXPECTED.length });
    expect(await grouping(ws, prod, groupOf)).toEqual(EXPECTED);
    const page = await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 });
    expect(page.pendingSignals).toBe(0);
    const sso = page.items.find((o) => o.keywords.some((k) => ['saml', 'sso', 'okta'].includes(k)))!;
    expect(sso).toMatchObject({ evidenceCount: 5, uniqueCompanyCount: 5 });
    expect(sso.subtitle).toMatch(/^5 signals from 5 companies · /);
    const crash = page.items.find((o) => o.keywords.includes('crashes') || o.keywords.includes('crash'))!;
    expect(crash.uniqueCompanyCount).toBe(4); // gmail.com is not a company
    expect(await getOpportunity(t.pool, 'ws_other', sso.id)).toBeUndefined();
  });

  it('without themes, no two themes are merged', async () => {
    const { ws, prod, groupOf } = await productWithFixture(undefined, false);
    await updateOpportunities(deps(), ws, prod);
    const themes = new Set(EXPECTED.filter((g) => g.length > 1).map((g) => g[0]!));
    for (const g of await grouping(ws, prod, groupOf)) expect(new Set(g.filter((x) => themes.has(x))).size, g.join(', ')).toBeLessThanOrEqual(1);
  });

  it('a full re-clustering hands the grouping each signal\'s text (title, content, theme) for the latent vectors over the product\'s words', async () => {
    const { ws, prod } = await productWithFixture();
    const handed: Array<string[] | undefined> = [];
    const recording = {
      ...semantics,
      describe: () => semantics.describe(),
      run: (async (name: string, args: { texts?: string[] }, transfer?: ArrayBuffer[]) => {
        if (name === 'recluster') handed.push(args.texts);
        return semantics.run(name as 'recluster', args as never, transfer);
      }) as SemanticsThread['run'],
    };
    await updateOpportunities({ ...deps(), semantics: recording }, ws, prod);
    const { rows } = await t.pool.query<{ text: string }>(
      `SELECT title || E'\\n' || content || E'\\n' || coalesce(theme, '') AS text FROM signals WHERE workspace_id = $1 AND product_id = $2`, [ws, prod]);
    expect(handed).toHaveLength(1);
    expect([...handed[0]!].sort()).toEqual(rows.map((r) => r.text).sort());
    // The fixture's themes are among them.
    expect(rows.some((r) => /\n[^\n]+$/.test(r.text))).toBe(true);
  });

  it('the same signals in another order, in another workspace, give the same opportunities and titles; a recompute keeps every id', async () => {
    const a = await productWithFixture();
    const reversed = FIXTURE.map((_, i) => FIXTURE.length - 1 - i);
    const b = await productWithFixture(reversed);
    // The order the grouping sorts signals by (ids aside) must not depend on the workspace: its signal type
    // ids differ, and a tie between two members as central went one way or the other with it.
    const orders: string[][] = [];
    const recording = {
      ...semantics,
      describe: () => semantics.describe(),
      run: (async (name: string, args: { orderKeys?: string[] }, transfer?: ArrayBuffer[]) => {
        if (name === 'recluster') orders.push(args.orderKeys!.map((key) => key.split('\u0000')[0]!).sort());
        return semantics.run(name as 'recluster', args as never, transfer);
      }) as SemanticsThread['run'],
    };
    await updateOpportunities({ ...deps(), semantics: recording }, a.ws, a.prod);
    await updateOpportunities({ ...deps(), semantics: recording }, b.ws, b.prod);
    expect(orders).toHaveLength(2);
    expect(orders[1]).toEqual(orders[0]);
    expect(await grouping(b.ws, b.prod, b.groupOf)).toEqual(await grouping(a.ws, a.prod, a.groupOf));
    const titles = async (ws: string, prod: string) => (await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 })).items.map((o) => o.title).sort();
    expect(await titles(b.ws, b.prod)).toEqual(await titles(a.ws, a.prod));
    const ids = async () => (await listOpportunities(t.pool, a.ws, a.prod, { limit: 100, offset: 0 })).items.map((o) => o.id).sort();
    const before = await ids();
    expect(await updateOpportunities(deps(), a.ws, a.prod, { full: true })).toMatchObject({ embedded: 0, reclustered: true });
    expect(await ids()).toEqual(before);
  });

  it('adding one signal keeps every other opportunity id and joins the theme it belongs to', async () => {
    const { ws, prod, src, groupOf } = await productWithFixture();
    await updateOpportunities(deps(), ws, prod);
    const before = (await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 })).items;
    const { results } = await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: [{ type: 'need', title: 'Okta SSO for the whole company', content: 'Our IT team requires SAML single sign-on through Okta before rollout.', theme: 'SSO through Okta' }] }, clock);
    groupOf.set(results[0]!.id, 'sso');
    await updateOpportunities(deps(), ws, prod);
    const after = (await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 })).items;
    expect(after.map((o) => o.id).sort()).toEqual(before.map((o) => o.id).sort());
    const sso = (await grouping(ws, prod, groupOf)).find((g) => g.includes('sso'))!;
    expect(sso).toEqual(['sso', 'sso', 'sso', 'sso', 'sso', 'sso']);
  });

  it('a large product is placed incrementally, re-clustered when it drifts, and a re-sent signal changes nothing', async () => {
    const { ws, prod, src, groupOf } = await productWithFixture();
    await updateOpportunities(deps(), ws, prod);
    // As if the product were large: the incremental path, and the cell path of the clustering.
    const large = { exactLimit: 8, smallProduct: 0 };
    const first = FIXTURE[10]!;
    const resent = await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: [{ type: 'pain_point', title: first[1], content: first[2] }] }, clock);
    expect(resent.productIds).toEqual([]); // reused: nothing to schedule
    const { results } = await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: [{ type: 'problem', title: 'Slack alerts stopped', content: 'Alerts no longer reach our Slack channel since the integration disconnected.', theme: 'Slack integration disconnects' }] }, clock);
    groupOf.set(results[0]!.id, 'slack');
    const incremental = await updateOpportunities(deps(), ws, prod, large);
    expect(incremental).toMatchObject({ placed: 1, reclustered: false, unsettled: true });
    const slack = (await grouping(ws, prod, groupOf)).find((g) => g.includes('slack'))!;
    expect(slack).toEqual(Array(6).fill('slack'));
    // Changing a signal's text moves it.
    await updateSignals(t.pool, ws, [{ id: results[0]!.id, title: 'Price too high', content: 'The subscription price is far too expensive for our budget.', theme: 'Price too high' }], clock);
    groupOf.set(results[0]!.id, 'pricing');
    expect(await updateOpportunities(deps(), ws, prod, large)).toMatchObject({ embedded: 1, placed: 1, reclustered: false });
    const groups = await grouping(ws, prod, groupOf);
    expect(groups.find((g) => g.includes('pricing'))).toEqual(Array(6).fill('pricing'));
    expect(groups.find((g) => g.includes('slack'))).toEqual(Array(5).fill('slack'));
    // Once quiet, the product is clustered as a whole again (the cell path here), keeping the grouping.
    expect(await updateOpportunities(deps(), ws, prod, { ...large, settle: true })).toMatchObject({ reclustered: true, unsettled: false });
    expect(await updateOpportunities(deps(), ws, prod, { ...large, settle: true })).toMatchObject({ reclustered: false, placed: 0 });
    const settled = await grouping(ws, prod, groupOf);
    for (const theme of ['pricing', 'slack', 'sso', 'crash', 'export']) expect(settled.filter((g) => g.includes(theme)), theme).toHaveLength(1);
  });

  it('signals placed incrementally start the same opportunity, under the same title, in any workspace and order', async () => {
    const offline = [
      { type: 'feature_request', title: 'Offline mode', content: 'Please let the app work offline.' },
      { type: 'feature_request', title: 'Works without internet on site visits', content: 'Our inspectors lose the network on site visits; the app must keep working offline and sync later.' },
      { type: 'feature_request', title: 'Offline access for field teams', content: 'Field teams need offline access to the app when there is no network, with their changes synced later.' },
    ];
    const titles: string[][] = [];
    for (const order of [[0, 1, 2], [2, 1, 0], [1, 2, 0]]) {
      const { ws, prod, src } = await productWithFixture();
      await updateOpportunities(deps(), ws, prod);
      const before = new Set((await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 })).items.map((o) => o.id));
      await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: order.map((i) => offline[i]!) }, clock);
      expect(await updateOpportunities(deps(), ws, prod, { smallProduct: 0 })).toMatchObject({ placed: 3, reclustered: false });
      const started = (await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 })).items.filter((o) => !before.has(o.id));
      titles.push(started.map((o) => o.title).sort());
    }
    expect(titles[0]).toHaveLength(1);
    expect(titles[1]).toEqual(titles[0]);
    expect(titles[2]).toEqual(titles[0]);
    expect(offline.map((o) => o.title)).toContain(titles[0]![0]);
  });

  it('a product clustered by an earlier grouping method is clustered again in full once, keeping its ids', async () => {
    const { ws, prod } = await productWithFixture();
    await updateOpportunities(deps(), ws, prod);
    const large = { smallProduct: 0 };
    expect(await updateOpportunities(deps(), ws, prod, large)).toMatchObject({ reclustered: false, placed: 0 });
    const method = async () => (await t.pool.query<{ m: string }>('SELECT clustering_method AS m FROM product_clusterings WHERE product_id = $1', [prod])).rows[0]!.m;
    expect(await method()).toBe(CLUSTERING_METHOD);
    const ids = async () => (await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 })).items.map((o) => o.id).sort();
    const before = await ids();
    // As a product clustered before this column was added (the migration's default).
    await t.pool.query("UPDATE product_clusterings SET clustering_method = '' WHERE product_id = $1", [prod]);
    expect(await updateOpportunities(deps(), ws, prod, large)).toMatchObject({ reclustered: true, embedded: 0 });
    expect(await method()).toBe(CLUSTERING_METHOD);
    expect(await ids()).toEqual(before);
    expect(await updateOpportunities(deps(), ws, prod, large)).toMatchObject({ reclustered: false, placed: 0 });
  });

  it("a person's move, edit and delete: counts change at once, recorded with who did it, and the clustering keeps a moved signal where it was put", async () => {
    const { ws, prod, src, groupOf } = await productWithFixture();
    await updateOpportunities(deps(), ws, prod);
    const ada = { userId: 'usr_ada', email: 'ada@acme.test' };
    const opportunities = (await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 })).items;
    const idOf = async (theme: string) => {
      for (const o of opportunities) {
        const d = await getOpportunity(t.pool, ws, o.id, { limit: 100, offset: 0 });
        if (d!.evidence.every((e) => groupOf.get(e.id) === theme)) return d!;
      }
      throw new Error(theme);
    };
    const sso = await idOf('sso');
    const pricing = await idOf('pricing');
    const moved = sso.evidence[0]!.id;
    expect(await moveSignals(t.pool, ws, [moved], pricing.id, ada, clock)).toEqual({ moved: 1 });
    const counts = async () => new Map((await listOpportunities(t.pool, ws, prod, { limit: 100, offset: 0 })).items.map((o) => [o.id, o.evidenceCount]));
    expect((await counts()).get(sso.id)).toBe(4);
    expect((await counts()).get(pricing.id)).toBe(6);
    // Full re-clustering (a small product re-clusters after every change) and incremental placement both keep it there.
    expect(await updateOpportunities(deps(), ws, prod, { full: true })).toMatchObject({ reclustered: true });
    const placedIn = async (id: string) => (await t.pool.query<{ opportunity_id: string }>('SELECT opportunity_id FROM opportunity_signals WHERE signal_id = $1', [id])).rows[0]?.opportunity_id;
    expect(await placedIn(moved)).toBe(pricing.id);
    expect((await counts()).get(pricing.id)).toBe(6);
    await editSignal(t.pool, ws, { id: moved, title: 'Okta single sign-on, again', theme: 'Single sign-on (SSO)' }, ada, clock);
    expect(await updateOpportunities(deps(), ws, prod, { exactLimit: 8, smallProduct: 0 })).toMatchObject({ placed: 1, reclustered: false });
    expect(await placedIn(moved)).toBe(pricing.id);
    expect(await updateOpportunities(deps(), ws, prod, { exactLimit: 8, smallProduct: 0, settle: true })).toMatchObject({ reclustered: true });
    expect(await placedIn(moved)).toBe(pricing.id);
    // Moving every pricing signal elsewhere and back: an opportunity that only pinned signals hold is kept under its name.
    const others = pricing.evidence.map((e) => e.id);
    await moveSignals(t.pool, ws, others, sso.id, ada, clock);
    expect((await counts()).get(pricing.id)).toBe(1);
    await updateOpportunities(deps(), ws, prod, { full: true });
    expect(await placedIn(moved)).toBe(pricing.id);
    expect((await getOpportunity(t.pool, ws, pricing.id))!.title).toBe(pricing.title);
    // Another product's opportunity, or one that does not exist, is refused.
    await expect(moveSignals(t.pool, ws, [moved], 'opp_nope', ada, clock)).rejects.toBeInstanceOf(OpportunityNotFoundError);
    const other = await productWithFixture();
    await expect(moveSignals(t.pool, other.ws, [moved], pricing.id, ada, clock)).rejects.toBeInstanceOf(OpportunityNotFoundError);
    // Deleting: the counts drop in the same transaction; "not a signal" keeps the text in the record.
    const ssoCount = (await counts()).get(sso.id)!;
    await deleteSignals(t.pool, ws, [others[0]!], ada, clock, 'not_a_signal');
    expect((await counts()).get(sso.id)).toBe(ssoCount - 1);
    expect(await getSignal(t.pool, ws, others[0]!)).toBeUndefined();
    await deleteSignals(t.pool, ws, [moved], ada, clock);
    expect((await counts()).has(pricing.id)).toBe(false); // emptied: gone at once
    const changes = await listSignalChanges(t.pool, ws, { limit: 50 });
    expect(changes.map((c) => c.action)).toEqual(expect.arrayContaining(['move', 'edit', 'delete', 'not_a_signal']));
    expect(changes.every((c) => c.byEmail === 'ada@acme.test')).toBe(true);
    expect(changes.find((c) => c.action === 'edit')!.detail).toMatchObject({ before: { title: expect.any(String) }, after: { title: 'Okta single sign-on, again' } });
    expect(changes.find((c) => c.action === 'not_a_signal')!.detail).toMatchObject({ content: expect.any(String), source_id: src });
    expect(await listSignalChanges(t.pool, other.ws)).toEqual([]);
    await expect(deleteSignals(t.pool, other.ws, [others[1]!], ada, clock)).rejects.toBeInstanceOf(SignalNotFoundError);
  });

  it('recent signals page by page with filters; growth over 7 and 30 days', async () => {
    const { ws, prod, src } = await productWithFixture();
    await updateOpportunities(deps(), ws, prod);
    const seen: string[] = [];
    let after;
    for (let i = 0; i < 10; i++) {
      const page = await listRecentSignals(t.pool, ws, {}, { limit: 10, after });
      seen.push(...page.items.map((s) => s.id));
      if (!page.next) break;
      after = page.next;
    }
    expect(new Set(seen).size).toBe(FIXTURE.length);
    const needs = await listRecentSignals(t.pool, ws, { type: 'need', productId: prod, sourceId: src }, { limit: 100 });
    expect(needs.items.length).toBe(FIXTURE.filter((_, i) => i % 3 === 0).length);
    expect(needs.items.every((s) => s.type === 'need' && s.opportunityId && s.sourceTitle === 'Call')).toBe(true);
    expect((await listRecentSignals(t.pool, 'ws_other', {}, { limit: 10 })).items).toEqual([]);
    const o = needs.items[0]!.opportunityId!;
    const growth = await opportunityGrowth(t.pool, ws, [o], new Date(now));
    expect(growth.get(o)!.month).toBeGreaterThan(0);
  });

  describe('an erasure that lands while signals are embedded or clustered (issue 41)', () => {
    const ZANETTI = [
      ['Zanetti cannot export invoices', 'Marco Zanetti says exporting invoices to Zanetti accounting fails every month.'],
      ['Zanetti invoice export broken', 'The invoice export Zanetti relies on breaks; Zanetti re-types every invoice by hand.'],
      ['Invoices export fails for Zanetti', 'Zanetti asked again: exporting invoices fails and Zanetti loses a day each month.'],
    ];
    async function productWithZanetti() {
      const made = await productWithFixture();
      const items = ZANETTI.map(([title, content]) => ({ type: 'pain_point', title: title!, content: content!, whoSaidIt: 'Marco Zanetti', theme: 'Invoice export fails' }));
      const { results } = await addSignals(t.pool, { workspaceId: made.ws, sourceId: made.src, items }, clock);
      return { ...made, theirs: results.map((r) => r.id) };
    }
    /** What the erasure does to a signal that mentions the person (libs/erasure), and to the opportunities' names and keywords. */
    const erase = async (ws: string) => {
      await t.pool.query(
        `UPDATE signals SET title = replace(title, 'Zanetti', '[erased]'), content = replace(replace(content, 'Marco ', ''), 'Zanetti', '[erased]'),
                who_said_it = '[erased]', keywords = '{}', embedding = NULL, embedding_version = NULL, cluster_pending = true, updated_at = $2
          WHERE workspace_id = $1 AND content LIKE '%Zanetti%'`, [ws, new Date(clock.now())]);
      await t.pool.query(
        `UPDATE opportunities SET title = replace(title, 'Zanetti', '[erased]'), keywords = array_remove(keywords, 'zanetti'), subtitle = replace(subtitle, 'zanetti', '[erased]')
          WHERE workspace_id = $1`, [ws]);
    };
    /** The semantics thread, with the erasure landing right after the first `op` answers. */
    const erasingAfter = (op: 'embed' | 'recluster', ws: string) => {
      let erased = false;
      return {
        thread: {
          ...semantics,
          describe: () => semantics.describe(),
          run: (async (name: string, args: never, transfer?: ArrayBuffer[]) => {
            const out = await semantics.run(name as 'embed', args, transfer);
            if (name === op && !erased) {
              erased = true;
              await erase(ws);
            }
            return out;
          }) as SemanticsThread['run'],
        },
        erased: () => erased,
      };
    };
    const mentions = async (ws: string) => (await t.pool.query<{ what: string }>(
      `SELECT 'signal ' || id AS what FROM signals WHERE workspace_id = $1 AND array_to_string(keywords, ' ') ILIKE '%zanetti%'
       UNION ALL SELECT 'opportunity ' || id FROM opportunities WHERE workspace_id = $1 AND concat_ws(' ', title, subtitle, array_to_string(keywords, ' ')) ILIKE '%zanetti%'`,
      [ws])).rows.map((r) => r.what);

    it('keywords of a signal embedded from its old text are not written over its redaction', async () => {
      const { ws, prod } = await productWithZanetti();
      const racing = erasingAfter('embed', ws);
      await updateOpportunities({ ...deps(), semantics: racing.thread }, ws, prod);
      expect(racing.erased()).toBe(true);
      expect(await mentions(ws)).toEqual([]);
      await updateOpportunities(deps(), ws, prod);
      expect(await mentions(ws)).toEqual([]);
      const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM signals WHERE workspace_id = $1 AND (cluster_pending OR embedding IS NULL)', [ws]);
      expect(rows[0]!.n).toBe(0); // the redacted signals were embedded and placed from their new text
    });

    it('opportunities clustered from signals read before their redaction are not written over it', async () => {
      const { ws, prod } = await productWithZanetti();
      await updateOpportunities(deps(), ws, prod);
      expect((await mentions(ws)).length).toBeGreaterThan(0); // the person's name is among the keywords before the erasure
      const racing = erasingAfter('recluster', ws);
      await updateOpportunities({ ...deps(), semantics: racing.thread }, ws, prod, { full: true });
      expect(racing.erased()).toBe(true);
      expect(await mentions(ws)).toEqual([]);
    });
  });
});
