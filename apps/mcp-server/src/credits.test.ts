import { balance, grantCredits, upsertPlan, usageByConsumer } from '@loupe/credits';
import { newId } from '@loupe/db';
import { createLogger, systemClock } from '@loupe/http';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, PAUSED_MESSAGE } from './server';
import { call, connectClient, issueAccessToken, seedSource, seedWorkspace, startMcpServer, type McpHarness } from './test/harness';
import { defineTool } from './tool-kit';

let h: McpHarness;
beforeAll(async () => {
  h = await startMcpServer();
});
afterAll(() => h.close());

const charges = async (workspaceId: string) =>
  (await h.pool.query<{ n: number; overage: number }>(
    `SELECT count(*)::int AS n, COALESCE(sum(overage), 0)::int AS overage FROM credit_ledger WHERE workspace_id = $1 AND kind = 'charge'`,
    [workspaceId],
  )).rows[0]!;

describe('credits per tool call (spec 8.2)', () => {
  it('charges 1 credit per successful call; skills tools, failed calls and invalid arguments are free', async () => {
    const w = await seedWorkspace(h, 'Counted', { credits: 100 });
    const c = await connectClient(h, { key: w.key });
    expect((await call(c, 'get_products')).isError).toBe(false);
    expect(await balance(h.pool, w.workspaceId)).toBe(99);
    expect((await call(c, 'find_skills')).isError).toBe(false);
    expect((await call(c, 'read_skills', { names: ['extract-signals'] })).isError).toBe(false);
    expect((await call(c, 'read_source', { source_id: 'src_missing' })).isError).toBe(true);
    await expect(c.callTool({ name: 'read_source', arguments: {} })).resolves.toMatchObject({ isError: true });
    expect((await call(c, 'see_updated_roadmap')).isError).toBe(true);
    expect(await balance(h.pool, w.workspaceId)).toBe(99);
    expect((await charges(w.workspaceId)).n).toBe(1);
    await c.close();
  });

  it('charges 200 concurrent successful calls exactly 200 credits', async () => {
    const w = await seedWorkspace(h, 'Busy', { credits: 1000 });
    const source = await seedSource(h, w, { segments: ['We need exports.'] });
    const c = await connectClient(h, { key: w.key });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) =>
      call(c, i % 2 ? 'get_products' : 'read_source', i % 2 ? {} : { source_id: source })));
    expect(results.filter((r) => r.isError)).toEqual([]);
    expect((await charges(w.workspaceId)).n).toBe(200);
    expect(await balance(h.pool, w.workspaceId)).toBe(800);
    await c.close();
  });

  it('lets exactly as many concurrent calls through as there are credits, then answers "MCP access is paused"; skills keep working', async () => {
    const w = await seedWorkspace(h, 'Short', { credits: 10 });
    const c = await connectClient(h, { key: w.key });
    const results = await Promise.all(Array.from({ length: 50 }, () => call(c, 'get_products')));
    expect(results.filter((r) => !r.isError)).toHaveLength(10);
    const paused = results.filter((r) => r.isError);
    expect(paused).toHaveLength(40);
    for (const p of paused) expect(p.text).toBe(PAUSED_MESSAGE);
    expect(await balance(h.pool, w.workspaceId)).toBe(0);
    expect(await charges(w.workspaceId)).toEqual({ n: 10, overage: 0 });
    expect((await call(c, 'find_skills')).isError).toBe(false);
    expect((await call(c, 'read_skills', { names: ['extract-signals'] })).isError).toBe(false);
    expect((await call(c, 'find_sources')).text).toMatch(/^MCP access is paused/);
    await c.close();
  });

  it('commits a tool\'s writes only with its charge: a call refused for credits leaves nothing behind', async () => {
    const w = await seedWorkspace(h, 'Writer', { credits: 1 });
    const c = await connectClient(h, { key: w.key });
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => call(c, 'create_shaping_note', { title: `Note ${i}`, content: 'Body' })));
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM shaping_notes WHERE workspace_id = $1', [w.workspaceId]);
    expect(rows[0].n).toBe(1);
    expect(await balance(h.pool, w.workspaceId)).toBe(0);
    await c.close();
  });

  it('leaves neither the writes nor the charge when the call fails after its charge', async () => {
    const w = await seedWorkspace(h, 'Failing', { credits: 5 });
    await h.pool.query('CREATE TABLE IF NOT EXISTS tool_writes (v text)');
    // Fails at COMMIT, after the tool wrote and the charge was written.
    await h.pool.query(`
      CREATE OR REPLACE FUNCTION fail_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.tool = 'boom' THEN RAISE EXCEPTION 'commit refused'; END IF; RETURN NEW; END $$;
      DROP TRIGGER IF EXISTS fail_boom ON credit_ledger;
      CREATE CONSTRAINT TRIGGER fail_boom AFTER INSERT ON credit_ledger DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_boom();`);
    const boom = defineTool({
      name: 'boom', title: 'Boom', description: 'test', inputSchema: { v: z.string() }, outputSchema: {}, annotations: {}, access: 'read',
      async handler(args, ctx) {
        await ctx.pool.query('INSERT INTO tool_writes (v) VALUES ($1)', [args.v]);
        return {};
      },
    });
    const principal = { kind: 'api_key' as const, workspaceId: w.workspaceId, userId: w.userId, scopes: new Set(['mcp:read']), defaultProductId: null, keyId: 'key_x', rateKey: 'x' };
    const result = await callTool(boom, { v: 'written' }, { principal, pool: h.pool, db: h.t.db, clock: systemClock, log: createLogger('silent'), services: {} });
    expect(result.isError).toBe(true);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM tool_writes')).rows[0].n).toBe(0);
    expect(await balance(h.pool, w.workspaceId)).toBe(5);
    expect((await charges(w.workspaceId)).n).toBe(0);
    await h.pool.query('DROP TRIGGER fail_boom ON credit_ledger');
  });

  it('continues past the credits on a paid plan and records the extra use as billable overage', async () => {
    const w = await seedWorkspace(h, 'Paid', { credits: 2 });
    await upsertPlan(h.pool, { name: 'Team', includedCredits: 0, overageAllowed: true });
    await h.pool.query(`UPDATE workspaces SET plan_id = (SELECT id FROM plans WHERE name = 'Team') WHERE id = $1`, [w.workspaceId]);
    const c = await connectClient(h, { key: w.key });
    for (let i = 0; i < 5; i++) expect((await call(c, 'get_products')).isError).toBe(false);
    expect(await balance(h.pool, w.workspaceId)).toBe(-3);
    expect(await charges(w.workspaceId)).toEqual({ n: 5, overage: 3 });
    await c.close();
  });

  it('records usage by API key and by application', async () => {
    const w = await seedWorkspace(h, 'Usage', { credits: 100 });
    const byKey = await connectClient(h, { key: w.key });
    const byApp = await connectClient(h, { bearer: await issueAccessToken(h, w) });
    for (let i = 0; i < 3; i++) await call(byKey, 'get_products');
    await call(byApp, 'get_products');
    const { rows: keys } = await h.pool.query<{ id: string }>(`SELECT id FROM api_keys WHERE workspace_id = $1 AND 'mcp:write' = ANY(permissions)`, [w.workspaceId]);
    expect(await usageByConsumer(h.pool, w.workspaceId, new Date(0))).toEqual([
      { consumer: 'api_key', id: keys[0]!.id, calls: 3, credits: 3, overage: 0 },
      { consumer: 'application', id: 'cli_test', calls: 1, credits: 1, overage: 0 },
    ]);
    await byKey.close();
    await byApp.close();
  });

  it('charges a source added with add_source when the worker processes it, not again for the same meeting', async () => {
    const w = await seedWorkspace(h, 'Sources', { credits: 100 });
    await grantCredits(h.pool, w.workspaceId, 1, `grant:${newId('g')}`);
    const c = await connectClient(h, { key: w.key });
    const args = { project_id: w.projectId, source_type: 'meeting_notes', title: 'Weekly', content: 'We talked.', external_source: 'gcal', external_id: 'evt-1' };
    const first = await call(c, 'add_source', args);
    expect(first.isError, first.text).toBe(false);
    const again = await call(c, 'add_source', args);
    expect(again.data).toMatchObject({ already_exists: true });
    const { rows } = await h.pool.query(`SELECT count(*)::int AS n FROM records WHERE workspace_id = $1`, [w.workspaceId]);
    expect(rows[0].n).toBe(1); // one record to process and charge, once, by the worker (apps/worker tests charge records)
    await c.close();
  });
});
