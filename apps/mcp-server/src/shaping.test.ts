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
    expect(out.data).toMatchObject({ status: null, version: 3 });
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
      add_source: { project_id: local.projectId, source_type: 'document', text: 'hello' },
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
