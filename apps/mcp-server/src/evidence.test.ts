import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { recomputeOpportunities } from '@loupe/evidence';
import { systemClock } from '@loupe/http';
import { call, connectClient, issueAccessToken, seedSource, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

let h: McpHarness;
let w: Workspace;
let other: Workspace;
let writer: Client;
let reader: Client;
let sourceId: string;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
  other = await seedWorkspace(h, 'Other');
  writer = await connectClient(h, { key: w.key });
  reader = await connectClient(h, { key: w.readOnlyKey });
  sourceId = await seedSource(h, w, { segments: ['Exports to Excel take twenty minutes.', 'We need SAML single sign-on.'] });
});
afterAll(async () => {
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
    expect(ok.data).toEqual({ updated: [id] });
    expect((await call(writer, 'view_item', { item_id: id, item_type: 'signal' })).data!.item).toMatchObject({ title: 'New title', who_said_it: null, content: 'Some content' });
  });
});

describe('get_opportunities and view_item', () => {
  it('pages through opportunities with nothing lost or repeated; view_item shows the evidence', async () => {
    const ws = await seedWorkspace(h, 'Clusters');
    const c = await connectClient(h, { key: ws.key });
    const src = await seedSource(h, ws);
    const themes = ['exports to Excel are slow', 'SAML single sign-on is required', 'the mobile app crashes on upload', 'the invite button is hidden', 'dark mode for dashboards', 'audit log for admins', 'webhooks for new reports'];
    await call(c, 'add_signals', { source_id: src, signals: themes.map((t, i) => signal(`Theme ${i}`, t)) });
    expect((await call(c, 'get_opportunities')).data!.digest).toMatch(/^No opportunities yet/);
    await recomputeOpportunities(h.pool, ws.workspaceId, ws.productId, systemClock);
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
    expect(pages).toBe(4);
    expect(new Set(ids).size).toBe(ids.length);
    const { rows } = await h.pool.query('SELECT id FROM opportunities WHERE workspace_id = $1', [ws.workspaceId]);
    expect([...ids].sort()).toEqual(rows.map((r) => r.id).sort());
    const opp = await call(c, 'view_item', { item_id: ids[0], item_type: 'opportunity' });
    expect(opp.data!.item.evidence).toHaveLength(opp.data!.item.evidence_count);
    const asOther = await call(writer, 'view_item', { item_id: ids[0], item_type: 'opportunity' });
    const missing = await call(writer, 'view_item', { item_id: 'opp_nope', item_type: 'opportunity' });
    expect(asOther.text.replace(ids[0]!, 'ID')).toBe(missing.text.replace('opp_nope', 'ID'));
    expect(missing.text).toMatch(/^opportunity opp_nope does not exist or you are not allowed to access it/);
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
