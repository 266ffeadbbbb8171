import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connectClient, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

let h: McpHarness;
let w: Workspace;
let other: Workspace;
let client: Client;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
  other = await seedWorkspace(h, 'Other');
  client = await connectClient(h, { key: w.readOnlyKey }); // shaping tools need only mcp:read (spec 5.3 rule 3)
});
afterAll(async () => {
  await client?.close();
  await h.close();
});

describe('create_shaping_note and update_shaping_note', () => {
  it('creates in the key\'s default product, updates field by field, keeps versions', async () => {
    const created = await call(client, 'create_shaping_note', { title: 'Faster exports', content: '# Problem\nExports time out.', status: 'ideas', tags: ['exports'] });
    expect(created.isError, created.text).toBe(false);
    expect(created.data).toMatchObject({ product_id: w.productId, title: 'Faster exports', status: 'ideas', status_name: 'Ideas', version: 1, tags: ['exports'] });
    const id = created.data!.id as string;
    const moved = await call(client, 'update_shaping_note', { note_id: id, status: 'prds', content: '# Problem\nExports time out after 20 minutes.' });
    expect(moved.data).toMatchObject({ title: 'Faster exports', status: 'prds', status_name: 'PRDs', version: 2, tags: ['exports'] });
    const out = await call(client, 'update_shaping_note', { note_id: id, status: '' });
    expect(out.data).toMatchObject({ version: 3 });
    expect(out.data).not.toHaveProperty('status'); // out of the pipeline: no status (nulls are left out)
  });

  it('the spec\'s errors: unknown product, unknown or foreign note, bad status', async () => {
    expect((await call(client, 'create_shaping_note', { product_id: other.productId, title: 't', content: 'c' })).text).toMatch(/^Product not found/);
    const foreign = await call(await connectClient(h, { key: other.key }), 'create_shaping_note', { title: 'theirs', content: 'c' });
    const a = await call(client, 'update_shaping_note', { note_id: foreign.data!.id, title: 'mine now' });
    const b = await call(client, 'update_shaping_note', { note_id: 'shn_nope', title: 'mine now' });
    expect(a.isError && b.isError).toBe(true);
    expect(a.text.replace(foreign.data!.id, 'ID')).toBe(b.text.replace('shn_nope', 'ID'));
    expect(a.text).toContain('does not exist or you are not allowed to access it');
    const bad = await call(client, 'update_shaping_note', { note_id: 'shn_x', status: 'shipped' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('status');
  });
});

// Issue 24 item 1: a note a model overwrote can be read as it was and restored over MCP, and found again.
describe('versions, restore and finding notes', () => {
  it('view_item reads version N; restore_version brings it back as a new version; the same update twice makes one version', async () => {
    const created = await call(client, 'create_shaping_note', { title: 'PRD: bulk export', content: '# PRD\nThe careful first draft.', status: 'prds' });
    const id = created.data!.id as string;
    expect(created.data).not.toHaveProperty('content'); // a write answers what it did, not the text just sent
    const overwritten = await call(client, 'update_shaping_note', { note_id: id, content: 'oops' });
    expect(overwritten.data).toMatchObject({ version: 2 });
    const again = await call(client, 'update_shaping_note', { note_id: id, content: 'oops' });
    expect(again.isError, again.text).toBe(false);
    expect(again.data).toMatchObject({ version: 2, unchanged: true });
    expect(again.text).toMatch(/unchanged.*no new version/s);
    const v1 = await call(client, 'view_item', { item_id: id, item_type: 'shaping_note', version: 1 });
    expect(v1.data!.item).toMatchObject({ id, version: 1, current_version: 2, content: '# PRD\nThe careful first draft.' });
    expect(v1.text).toContain('The careful first draft.');
    expect(v1.text).toContain(`restore_version: 1`);
    const restored = await call(client, 'update_shaping_note', { note_id: id, restore_version: 1 });
    expect(restored.isError, restored.text).toBe(false);
    expect(restored.data).toMatchObject({ version: 3, restored_from: 1, status: 'prds' });
    const current = await call(client, 'view_item', { item_id: id, item_type: 'shaping_note' });
    expect(current.data!.item).toMatchObject({ version: 3, content: '# PRD\nThe careful first draft.' });
    expect(current.data!.item.versions.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);
    const twice = await call(client, 'update_shaping_note', { note_id: id, restore_version: 1 });
    expect(twice.data).toMatchObject({ version: 3, unchanged: true });
    const both = await call(client, 'update_shaping_note', { note_id: id, restore_version: 1, title: 'x' });
    expect(both.text).toMatch(/^Give restore_version alone/);
    const missing = await call(client, 'view_item', { item_id: id, item_type: 'shaping_note', version: 9 });
    expect(missing.text).toMatch(/^Version 9 of shaping note .* does not exist: it has versions 1 to 3/);
  });

  it('list_shaping_notes finds notes by status, tag and words, paged; the enum error lists the valid statuses', async () => {
    const ws = await seedWorkspace(h, 'Notes');
    const c = await connectClient(h, { key: ws.readOnlyKey });
    for (let i = 0; i < 5; i++) await call(c, 'create_shaping_note', { title: `Idea ${i}`, content: `Customers ask for item ${i}.`, status: 'ideas', tags: ['backlog'] });
    const prd = await call(c, 'create_shaping_note', { title: 'PRD: SAML single sign-on', content: '## Problem\nAdmins at Globex need Okta SSO before rollout.', status: 'prds', tags: ['sso', 'enterprise'] });
    const loose = await call(c, 'create_shaping_note', { title: 'Loose thoughts', content: 'Nothing decided about okta yet.' });
    const bySso = await call(c, 'list_shaping_notes', { query: 'okta sso' });
    expect(bySso.isError, bySso.text).toBe(false);
    expect(bySso.data!.items.map((n: { id: string }) => n.id)).toEqual([prd.data!.id]);
    expect(bySso.data!.items[0].excerpt).toContain('Okta SSO');
    expect(bySso.text).toContain(`\`${prd.data!.id}\``);
    expect((await call(c, 'list_shaping_notes', { query: 'okta' })).data!.total).toBe(2);
    expect((await call(c, 'list_shaping_notes', { status: '' })).data!.items.map((n: { id: string }) => n.id)).toEqual([loose.data!.id]);
    expect((await call(c, 'list_shaping_notes', { tag: 'Enterprise' })).data!.items.map((n: { id: string }) => n.id)).toEqual([prd.data!.id]);
    const seen: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = await call(c, 'list_shaping_notes', { status: 'ideas', limit: 2, offset });
      expect(page.data!.total).toBe(5);
      seen.push(...page.data!.items.map((n: { id: string }) => n.id));
      offset = page.data!.next_offset;
    }
    expect(new Set(seen).size).toBe(5);
    const past = await call(c, 'list_shaping_notes', { offset: 50 });
    expect(past.data!.digest).toMatch(/offset 50 is past the end/);
    const bad = await call(c, 'update_shaping_note', { note_id: prd.data!.id, status: 'Ready' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/status must be one of "ideas", "prds", "dev_plans", "build_notes", "revisions", "ready", "done", "" \(got "Ready"\)/);
    expect((await call(c, 'list_shaping_notes', { product_id: other.productId })).text).toMatch(/^Product not found/);
    await c.close();
  });
});

describe('find_skills and read_skills', () => {
  it('list the catalogue with the products to choose from, and read a skill in full', async () => {
    const found = await call(client, 'find_skills');
    expect(found.isError, found.text).toBe(false);
    expect(found.data!.skills.map((s: { name: string }) => s.name)).toEqual(expect.arrayContaining(['customer-research', 'extract-signals']));
    expect(found.data).toMatchObject({ products: [{ id: w.productId }], selected_product_id: w.productId });
    const read = await call(client, 'read_skills', { names: ['extract-signals', 'nope'] });
    expect(read.data!.skills[0]).toMatchObject({ name: 'extract-signals', body: expect.stringContaining('signal') });
    expect(read.data!.missing).toEqual(['nope']);
    const none = await call(client, 'read_skills', { names: ['nope'] });
    expect(none.isError).toBe(true);
    expect(none.text).toContain('find_skills');
  });
});

describe('workspaces that store their data locally (spec 7.4)', () => {
  it('answer every tool with "Tool is not available for this workspace", and charge nothing', async () => {
    const local = await seedWorkspace(h, 'Local');
    await h.pool.query('UPDATE workspaces SET local_data_storage = true WHERE id = $1', [local.workspaceId]);
    const before = (await h.pool.query('SELECT credit_balance FROM workspaces WHERE id = $1', [local.workspaceId])).rows[0].credit_balance;
    const c = await connectClient(h, { key: local.key });
    const { tools } = await c.listTools();
    const validArgs: Record<string, Record<string, unknown>> = {
      read_skills: { names: ['x'] }, read_source: { source_id: 'src_x' }, view_item: { item_id: 'x', item_type: 'signal' },
      add_source: { project_id: local.projectId, source_type: 'document', content: 'hello' },
      add_signals: { source_id: 'src_x', signals: [{ type: 'need', title: 't', content: 'c' }] }, update_signals: { updates: [{ id: 'sig_x' }] },
      create_shaping_note: { title: 't', content: 'c' }, update_shaping_note: { note_id: 'x' },
    };
    expect(tools.length).toBeGreaterThan(10);
    for (const tool of tools) {
      const refused = await call(c, tool.name, validArgs[tool.name] ?? {});
      expect(refused.isError, tool.name).toBe(true);
      expect(refused.text, tool.name).toMatch(/^Tool is not available for this workspace/);
    }
    expect((await h.pool.query('SELECT credit_balance FROM workspaces WHERE id = $1', [local.workspaceId])).rows[0].credit_balance).toBe(before);
    await c.close();
  });
});
