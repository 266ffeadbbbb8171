import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import {
  addSignals, BUILT_IN_SIGNAL_TYPES, clusterSignals, createSignalType, ensureSignalTypes, getOpportunity, getSignal, listOpportunities, listSignalsOfSource,
  listSignalTypes, recomputeOpportunities, setSignalTypeActive,
  SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError, updateSignals, type SignalView,
} from './index';

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
    expect(again.results).toEqual([{ id: first.results[0]!.id, reused: true }]);
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

// The fixture and its expected grouping, written before the clustering code.
const FIXTURE: Array<[group: string, title: string, content: string, who: string]> = [
  ['export', 'Quarterly export to Excel is slow', 'Exporting the quarterly report to Excel takes twenty minutes.', 'ana@globex.com'],
  ['export', 'CSV export fails on big reports', 'The CSV export times out once the report has thousands of rows.', 'claire@umbrella.co'],
  ['export', 'Wants scheduled exports', 'A scheduled export of the full report every Monday, sent by email, would save a day.', 'tom@soylent.com'],
  ['export', 'Splits reports to export them', 'They split the report by region and export six spreadsheets to avoid the timeout.', 'ana@globex.com'],
  ['sso', 'SAML single sign-on required', 'Security policy requires SAML single sign-on for every tool.', 'bill@initech.com'],
  ['sso', 'Needs Okta login', 'Procurement will only sign if users can log in through Okta.', 'tom@soylent.com'],
  ['sso', 'Separate passwords annoy IT', 'IT keeps asking when people can sign in with the company SSO instead of separate passwords.', 'ana@globex.com'],
  ['sso', 'Would pay for SSO', 'They would pay extra for single sign-on with Google Workspace.', 'gavin@hooli.xyz'],
  ['mobile', 'Mobile app crashes on photo upload', 'The mobile app crashed twice when uploading a photo of a receipt.', 'gavin@hooli.xyz'],
  ['mobile', 'Android app closes during upload', 'On Android the app force closes while uploading receipt photos.', 'lee@acme.org'],
  ['mobile', 'Upload from phone freezes', 'Uploading a receipt photo from the phone freezes the app.', 'kim@gmail.com'],
  ['alone', 'Invite button hard to find', 'Inviting teammates was confusing because the invite button is hidden in settings.', 'gavin@hooli.xyz'],
];

function fixtureSignals(): SignalView[] {
  return FIXTURE.map(([, title, content, who], i) => ({
    id: `sig_${String(i).padStart(3, '0')}`, sourceId: 'src', productId: 'prod', type: i % 3 ? 'pain_point' : 'need', typeName: '',
    title, content, whoSaidIt: who, participantId: who, createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000), updatedAt: new Date(),
  }));
}

describe('opportunities', () => {
  it('signals about one problem in different words cluster together; unrelated ones do not', () => {
    const clusters = clusterSignals(fixtureSignals());
    const groupsOf = clusters.map((c) => c.signals.map((s) => FIXTURE[Number(s.id.slice(4))]![0]));
    const expected = [['export', 'export', 'export', 'export'], ['sso', 'sso', 'sso', 'sso'], ['mobile', 'mobile', 'mobile'], ['alone']];
    expect(groupsOf.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!))).toEqual(expected.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!)));
    const sso = clusters.find((c) => c.signals.some((s) => s.id === 'sig_004'))!;
    expect(sso.companies).toBe(4);
    const mobile = clusters.find((c) => c.signals.some((s) => s.id === 'sig_008'))!;
    expect(mobile.companies).toBe(2); // gmail.com is not a company
  });

  it('recomputes deterministically into stored, paged opportunities with their evidence', async () => {
    const { ws, prod, src } = await workspace();
    await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: FIXTURE.map(([, title, content, who]) => ({ type: 'pain_point', title, content, whoSaidIt: who })) }, clock);
    expect(await recomputeOpportunities(t.pool, ws, prod, clock)).toBe(4);
    const first = await listOpportunities(t.pool, ws, prod, { limit: 2, offset: 0 });
    expect(first.total).toBe(4);
    expect(first.items.map((o) => o.evidenceCount)).toEqual([4, 4]);
    const snapshot = async () => {
      const page = await listOpportunities(t.pool, ws, prod, { limit: 10, offset: 0 });
      return Promise.all(page.items.map(async (o) => ({ ...o, evidence: (await getOpportunity(t.pool, ws, o.id))!.evidence.map((e) => e.id) })));
    };
    const before = await snapshot();
    await recomputeOpportunities(t.pool, ws, prod, clock);
    expect(await snapshot()).toEqual(before);
    const sso = before.find((o) => /sign-on|SSO|Okta|SAML/i.test(o.title))!;
    expect(sso).toMatchObject({ evidenceCount: 4, uniqueCompanyCount: 4, subtitle: '4 signals from 4 companies', type: 'pain_point' });
    const again = await listOpportunities(t.pool, ws, prod, { limit: 10, offset: 0 });
    expect(again.items.slice(0, 2).map((o) => o.id)).toEqual(first.items.map((o) => o.id));
    const detail = await getOpportunity(t.pool, ws, again.items[3]!.id);
    expect(detail!.evidence).toHaveLength(1);
    expect(await getOpportunity(t.pool, 'ws_other', again.items[0]!.id)).toBeUndefined();
  });

  it('takes another similarity function or threshold', async () => {
    const everything = clusterSignals(fixtureSignals(), () => 1);
    expect(everything).toHaveLength(1);
    expect(clusterSignals(fixtureSignals(), undefined, 1.01)).toHaveLength(FIXTURE.length);
    const { ws, prod, src } = await workspace();
    await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: FIXTURE.map(([, title, content]) => ({ type: 'need', title, content })) }, clock);
    expect(await recomputeOpportunities(t.pool, ws, prod, clock, { similarity: () => 0 })).toBe(FIXTURE.length);
    expect(await recomputeOpportunities(t.pool, ws, prod, clock)).toBe(4);
  });
});
