import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { updateOpportunities } from '@loupe/evidence';
import { systemClock } from '@loupe/http';
import { startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { call, connectClient, issueAccessToken, seedSource, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

let h: McpHarness;
let w: Workspace;
let other: Workspace;
let writer: Client;
let reader: Client;
let sourceId: string;
let semantics: SemanticsThread;
const updateOpportunitiesOf = (ws: Workspace) => updateOpportunities({ pool: h.pool, semantics, clock: systemClock }, ws.workspaceId, ws.productId);
beforeAll(async () => {
  semantics = startSemanticsThread();
  h = await startMcpServer();
  w = await seedWorkspace(h);
  other = await seedWorkspace(h, 'Other');
  writer = await connectClient(h, { key: w.key });
  reader = await connectClient(h, { key: w.readOnlyKey });
  sourceId = await seedSource(h, w, { segments: ['Exports to Excel take twenty minutes.', 'We need SAML single sign-on.'] });
});
afterAll(async () => {
  await semantics?.close();
  await writer?.close();
  await reader?.close();
  await h.close();
});

const signal = (title: string, content: string, type = 'pain_point') => ({ type, title, content, who_said_it: 'ana@globex.com' });

describe('add_signals and update_signals', () => {
  it('need mcp:write: a read-only connection is told so', async () => {
    const r = await call(reader, 'add_signals', { source_id: sourceId, signals: [signal('a', 'b')] });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^Tool is not available on this connection: add_signals needs the mcp:write permission/);
  });

  it('stores signals atomically, replays safely, and schedules the opportunities recompute', async () => {
    const items = [signal('Slow Excel exports', 'Exports to Excel take twenty minutes.'), signal('Needs SSO', 'We need SAML single sign-on.', 'need')];
    const first = await call(writer, 'add_signals', { source_id: sourceId, signals: items });
    expect(first.isError, first.text).toBe(false);
    expect(first.data).toMatchObject({ created: 2, reused: 0 });
    const again = await call(writer, 'add_signals', { source_id: sourceId, signals: items });
    expect(again.data).toMatchObject({ created: 0, reused: 2, signals: first.data!.signals.map((s: { id: string }) => ({ id: s.id, reused: true })) });
    const { rows } = await h.pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'opportunities.recompute' AND data->>'productId' = $1`, [w.productId]);
    expect(rows[0].n).toBeGreaterThanOrEqual(1);
    const bad = await call(writer, 'add_signals', { source_id: sourceId, signals: [signal('ok', 'fine'), signal('x', 'y', 'rumour')] });
    expect(bad.text).toMatch(/^Unknown signal type "rumour": use one of the workspace's active types: .*need/);
    const { rows: count } = await h.pool.query('SELECT count(*)::int AS n FROM signals WHERE workspace_id = $1', [w.workspaceId]);
    expect(count[0].n).toBe(2);
  });

  it('more than 100 items names the field', async () => {
    const r = await call(writer, 'add_signals', { source_id: sourceId, signals: Array.from({ length: 101 }, (_, i) => signal(`t${i}`, `c${i}`)) });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('signals');
  });

  it('another workspace\'s source or signal is answered like one that does not exist', async () => {
    const foreignSource = await seedSource(h, other);
    const a = await call(writer, 'add_signals', { source_id: foreignSource, signals: [signal('a', 'b')] });
    const b = await call(writer, 'add_signals', { source_id: 'src_nope', signals: [signal('a', 'b')] });
    expect(a.text.replace(foreignSource, 'ID')).toBe(b.text.replace('src_nope', 'ID'));
    expect(a.text).toMatch(/^Source not found or access denied/);
    const u = await call(writer, 'update_signals', { updates: [{ id: 'sig_nope', title: 'x' }] });
    expect(u.text).toMatch(/does not exist or you are not allowed to access it/);
  });

  it('update_signals edits all or nothing', async () => {
    const added = await call(writer, 'add_signals', { source_id: sourceId, signals: [signal('Old title', 'Some content')] });
    const id = added.data!.signals[0].id;
    const failed = await call(writer, 'update_signals', { updates: [{ id, title: 'New title' }, { id: 'sig_nope', title: 'x' }] });
    expect(failed.isError).toBe(true);
    expect((await call(writer, 'view_item', { item_id: id, item_type: 'signal' })).data!.item.title).toBe('Old title');
    const ok = await call(writer, 'update_signals', { updates: [{ id, title: 'New title', who_said_it: null }] });
    expect(ok.data).toEqual({ updated: [{ id, quotes: [], quotes_verified: 'no_quote' }] });
    const viewed = (await call(writer, 'view_item', { item_id: id, item_type: 'signal' })).data!.item;
    expect(viewed).toMatchObject({ title: 'New title', content: 'Some content' });
    expect(viewed).not.toHaveProperty('who_said_it'); // cleared: left out, not null
  });
});

describe('get_opportunities and view_item', () => {
  it('pages through opportunities with nothing lost or repeated; view_item shows the evidence', async () => {
    const ws = await seedWorkspace(h, 'Clusters');
    const c = await connectClient(h, { key: ws.key });
    const src = await seedSource(h, ws);
    const themes = ['exports to Excel are slow', 'SAML single sign-on is required', 'the mobile app crashes on upload', 'the invite button is hidden', 'dark mode for dashboards', 'audit log for admins', 'webhooks for new reports'];
    await call(c, 'add_signals', { source_id: src, signals: themes.map((t) => signal(t, t)) });
    const before = await call(c, 'get_opportunities');
    expect(before.data!.digest).toMatch(/^No opportunities yet\. 7 new or changed signals are still being placed/);
    expect(before.data!.pending_signals).toBe(7);
    await updateOpportunitiesOf(ws);
    expect((await call(c, 'get_opportunities')).data!.pending_signals).toBe(0);
    const ids: string[] = [];
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const page = await call(c, 'get_opportunities', { limit: 2, offset });
      expect(page.isError, page.text).toBe(false);
      ids.push(...page.data!.items.map((o: { id: string }) => o.id));
      offset = page.data!.next_offset;
      pages++;
    }
    const { rows } = await h.pool.query('SELECT id FROM opportunities WHERE workspace_id = $1', [ws.workspaceId]);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(pages).toBe(Math.ceil(rows.length / 2));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(rows.map((r) => r.id).sort());
    const opp = await call(c, 'view_item', { item_id: ids[0], item_type: 'opportunity' });
    expect(opp.data!.item.evidence).toHaveLength(opp.data!.item.evidence_count);
    const asOther = await call(writer, 'view_item', { item_id: ids[0], item_type: 'opportunity' });
    const missing = await call(writer, 'view_item', { item_id: 'opp_nope', item_type: 'opportunity' });
    expect(asOther.text.replace(ids[0]!, 'ID')).toBe(missing.text.replace('opp_nope', 'ID'));
    expect(missing.text).toMatch(/^opportunity opp_nope does not exist or you are not allowed to access it/);
    await c.close();
  });

  it('view_item pages the evidence of a large opportunity of long signals, and cuts long contents', async () => {
    const ws = await seedWorkspace(h, 'Large');
    const c = await connectClient(h, { key: ws.key });
    const src = await seedSource(h, ws);
    const long = (i: number) => `Exporting the quarterly report to Excel is slow (${i}). ${'The export of every report takes twenty minutes and times out. '.repeat(200)}`;
    for (let batch = 0; batch < 2; batch++) {
      const r = await call(c, 'add_signals', { source_id: src, signals: Array.from({ length: 60 }, (_, i) => ({ ...signal(`Slow export ${batch}-${i}`, long(batch * 60 + i)), theme: 'Slow report export' })) });
      expect(r.isError, r.text).toBe(false);
    }
    await updateOpportunitiesOf(ws);
    const list = await call(c, 'get_opportunities');
    expect(list.data!.items[0].evidence_count).toBe(120);
    const seen = new Set<string>();
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = await call(c, 'view_item', { item_id: list.data!.items[0].id, item_type: 'opportunity', offset });
      expect(page.text.length).toBeLessThan(80_000);
      const item = page.data!.item;
      expect(item.evidence.length).toBeLessThanOrEqual(50);
      for (const e of item.evidence as Array<{ id: string; content: string; content_truncated?: boolean }>) {
        seen.add(e.id);
        expect(e.content.length).toBeLessThanOrEqual(1_501);
        expect(e.content_truncated).toBe(true);
      }
      offset = item.evidence_next_offset;
    }
    expect(seen.size).toBe(120);
    await c.close();
  });

  it('view_item shows a source and a shaping note with its versions', async () => {
    const src = await call(writer, 'view_item', { item_id: sourceId, item_type: 'source' });
    expect(src.data!.item).toMatchObject({ id: sourceId, total_segments: 2 });
    const note = await call(writer, 'create_shaping_note', { title: 'SSO', content: 'Problem: no SSO.' });
    await call(writer, 'update_shaping_note', { note_id: note.data!.id, status: 'ideas' });
    const viewed = await call(writer, 'view_item', { item_id: note.data!.id, item_type: 'shaping_note' });
    expect(viewed.data!.item.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
  });

  // Issue 24 item 9.
  it('a signal shows its source\'s title and its opportunity; opportunity rows carry updated_at and the week\'s growth; an opp_ id given as a source is named', async () => {
    const ws = await seedWorkspace(h, 'Growth');
    const c = await connectClient(h, { key: ws.key });
    const src = await seedSource(h, ws, { title: 'Globex onboarding call' });
    const added = await call(c, 'add_signals', {
      source_id: src,
      signals: [1, 2, 3].map((i) => ({ ...signal(`Slow export ${i}`, `Exporting the quarterly report to Excel takes twenty minutes (${i}).`), theme: 'Slow report export' })),
    });
    await updateOpportunitiesOf(ws);
    const [first, , old] = added.data!.signals.map((s: { id: string }) => s.id);
    await h.pool.query("UPDATE signals SET updated_at = now() - interval '10 days' WHERE id = $1", [old]);
    const list = await call(c, 'get_opportunities');
    const row = list.data!.items[0];
    expect(row).toMatchObject({ evidence_count: 3, signals_last_7_days: 2, updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(list.text).toContain(`\`${row.id}\`: 3 signals`);
    expect(list.text).toContain('+2 in 7 days');
    const viewed = await call(c, 'view_item', { item_id: first, item_type: 'signal' });
    expect(viewed.data!.item).toMatchObject({ source_id: src, source_title: 'Globex onboarding call', opportunity: { id: row.id, title: row.title } });
    expect(viewed.text).toContain(`**Source**: Globex onboarding call \`${src}\``);
    expect(viewed.text).toContain(`**Opportunity**: ${row.title} \`${row.id}\``);
    const wrongType = await call(c, 'view_item', { item_id: row.id, item_type: 'source' });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toMatch(/^source opp_\S+ does not exist or you are not allowed to access it\. The id starts with opp_: it looks like an opportunity; call view_item with item_type "opportunity"/);
    const pastEnd = await call(c, 'get_opportunities', { offset: 5 });
    expect(pastEnd.data!.digest).toMatch(/offset 5 is past the end/);
    expect(pastEnd.text).not.toMatch(/showing 6–5/);
    await c.close();
  });

  it('another workspace\'s product: Product not found; an OAuth connection without product_id: product_id is required', async () => {
    const r = await call(writer, 'get_opportunities', { product_id: other.productId });
    expect(r.text).toMatch(/^Product not found/);
    const oauth = await connectClient(h, { bearer: await issueAccessToken(h, w) });
    const missing = await call(oauth, 'get_opportunities');
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^product_id is required: call get_products/);
    expect((await call(oauth, 'get_opportunities', { product_id: w.productId })).isError).toBe(false);
    await h.pool.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [w.workspaceId, w.userId]);
    await expect(call(oauth, 'get_products')).rejects.toThrow();
    await h.pool.query("INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'owner')", [w.workspaceId, w.userId]);
    await oauth.close().catch(() => {});
  });
});
