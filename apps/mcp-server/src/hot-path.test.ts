import { revokeApiKey } from '@loupe/api-keys';
import { statementsOf } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_LOOKUPS } from './authenticate';
import { issueAccessToken, rawPost, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

let h: McpHarness;
let w: Workspace;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
});
afterAll(() => h.close());

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const getProducts = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_products', arguments: {} } };

describe('the MCP hot path in one statement (issue 26)', () => {
  it('a call reads the credential, its workspace standing and the rate limits in one statement', async () => {
    const bearer = await issueAccessToken(h, w);
    const credentials: Record<string, string>[] = [{ 'x-api-key': w.key }, { authorization: `Bearer ${bearer}` }];
    for (const headers of credentials) {
      expect((await rawPost(h, list, headers)).status).toBe(200); // warm: the key's last use is written once a minute
      const listed = await statementsOf(async () => expect((await rawPost(h, list, headers)).status).toBe(200));
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatch(/^rate-limit-take-many\+mcp-(api-key|access-token)-with-standing$/);
      // A tool call: that statement, the tool's own read, the charge (its transaction, shared by concurrent calls); no standing read.
      const called = await statementsOf(async () => {
        const res = await rawPost(h, getProducts, headers);
        expect(((await res.json()) as any).result.isError).toBeFalsy();
      });
      expect(called.filter((s) => s.includes('with-standing'))).toHaveLength(1);
      expect(called.some((s) => s === 'credits-workspace-standing' || s.includes('api-key-authenticate') || s.includes('oauth-verify-access-token'))).toBe(false);
    }
  });

  it('a revoked key is refused on the very next request', async () => {
    const other = await seedWorkspace(h, 'Revokers');
    expect((await rawPost(h, list, { 'x-api-key': other.key })).status).toBe(200);
    const { rows } = await h.pool.query<{ id: string }>("SELECT id FROM api_keys WHERE workspace_id = $1 AND permissions @> '{mcp:write}'", [other.workspaceId]);
    await revokeApiKey(h.t.db, other.workspaceId, rows[0]!.id);
    const res = await rawPost(h, list, { 'x-api-key': other.key });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error).toMatch(/^Invalid API key: it is unknown or was revoked/);
  });

  it('a removed member is refused on the very next request, by key and by token', async () => {
    const other = await seedWorkspace(h, 'Leavers');
    const bearer = await issueAccessToken(h, other);
    expect((await rawPost(h, getProducts, { 'x-api-key': other.key })).status).toBe(200);
    expect((await rawPost(h, getProducts, { authorization: `Bearer ${bearer}` })).status).toBe(200);
    await h.pool.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [other.workspaceId, other.userId]);
    const byKey = await rawPost(h, getProducts, { 'x-api-key': other.key });
    expect(byKey.status).toBe(401);
    expect(((await byKey.json()) as any).error).toMatch(/no longer belongs to the workspace/);
    const byToken = await rawPost(h, getProducts, { authorization: `Bearer ${bearer}` });
    expect(byToken.status).toBe(401);
    expect(await byToken.json()).toMatchObject({ error: 'invalid_token', error_description: expect.stringMatching(/no longer belongs/) });
  });

  it('a revoked grant is refused on the very next request; concurrent requests each get their own credential', async () => {
    const a = await seedWorkspace(h, 'Concurrent A');
    const b = await seedWorkspace(h, 'Concurrent B');
    const [ta, tb] = [await issueAccessToken(h, a), await issueAccessToken(h, b)];
    // Overlapping requests share statements (the credential's, the tool's read): each must still be answered for its own credential and workspace.
    let answers: { i: number; status: number; body: any }[] = [];
    const sent = await statementsOf(async () => {
      answers = await Promise.all(Array.from({ length: 40 }, (_, i) => {
        const headers: Record<string, string> = [{ 'x-api-key': a.key }, { authorization: `Bearer ${tb}` }, { 'x-api-key': 'loupe_sk_' + 'y'.repeat(43) }, { authorization: `Bearer ${ta}` }][i % 4]!;
        return rawPost(h, getProducts, headers).then(async (res) => ({ i, status: res.status, body: (await res.json()) as any }));
      }));
    });
    expect(sent.filter((s) => s === 'mcp-get-products').length).toBeLessThan(30);
    for (const { i, status, body } of answers) {
      if (i % 4 === 2) {
        expect(status).toBe(401);
        continue;
      }
      expect(status).toBe(200);
      const names = body.result.structuredContent.products.map((p: { name: string }) => p.name);
      expect(names).toEqual([i % 4 === 1 ? 'Concurrent B app' : 'Concurrent A app']);
    }
    await h.pool.query('UPDATE oauth_grants SET revoked_at = now() WHERE workspace_id = $1', [b.workspaceId]);
    expect((await rawPost(h, list, { authorization: `Bearer ${tb}` })).status).toBe(401);
  });

  it('the standing read with the credential applies: a workspace with its data kept locally, a paused workspace', async () => {
    const local = await seedWorkspace(h, 'Local');
    await h.pool.query('UPDATE workspaces SET local_data_storage = true WHERE id = $1', [local.workspaceId]);
    const refused = (await (await rawPost(h, getProducts, { 'x-api-key': local.key })).json()) as any;
    expect(refused.result.isError).toBe(true);
    expect(refused.result.content[0].text).toMatch(/keeps its data on its own machines/);
    const broke = await seedWorkspace(h, 'Broke', { credits: 0 });
    const paused = (await (await rawPost(h, getProducts, { 'x-api-key': broke.key })).json()) as any;
    expect(paused.result.isError).toBe(true);
    expect(paused.result.content[0].text).toMatch(/MCP access is paused/);
  });

  it('the credential statement is planned once per connection and finds its rows by unique index, however many credentials there are', async () => {
    const many = await seedWorkspace(h, 'Many credentials');
    await h.pool.query(
      `INSERT INTO api_keys (id, workspace_id, created_by_user_id, name, display_prefix, secret_hash, permissions)
       SELECT 'key_many_' || i, $1, $2, 'key ' || i, 'loupe_m', md5('key' || i), '{mcp:read}' FROM generate_series(1, 3000) i`,
      [many.workspaceId, many.userId],
    );
    await h.pool.query(
      `INSERT INTO oauth_models (model, id_hash, grant_id, payload, expires_at)
       SELECT 'AccessToken', md5('token' || i), 'grant_many', '{}', now() + interval '1 hour' FROM generate_series(1, 3000) i`,
    );
    await h.pool.query(`INSERT INTO users (id, email, email_verified) SELECT 'usr_many_' || i, 'many' || i || '@acme.test', true FROM generate_series(1, 3000) i`);
    await h.pool.query(`INSERT INTO memberships (workspace_id, user_id, role) SELECT $1, 'usr_many_' || i, 'member' FROM generate_series(1, 3000) i`, [many.workspaceId]);
    await h.pool.query('ANALYZE api_keys, oauth_models, memberships, oauth_grants, users');
    const client = await h.pool.connect();
    try {
      for (const [kind, lookup] of Object.entries(CREDENTIAL_LOOKUPS)) {
        const name = `plan_${kind.toLowerCase()}`;
        await client.query(`PREPARE ${name}(text[], bigint[], int[], text[]) AS ${lookup.select}`);
        const execute = (hash: string) => `EXECUTE ${name}('{}', '{}', '{}', ARRAY['${hash}'])`;
        for (let i = 1; i <= 20; i++) expect((await client.query(execute(`${kind === 'apiKey' ? 'key' : 'token'}${i}`))).rowCount).toBe(0);
        const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>('SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1', [name]);
        // PostgreSQL tries custom plans five times, then keeps the generic one: planned once, not per call.
        expect(Number(rows[0]!.custom_plans)).toBeLessThanOrEqual(5);
        expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(15);
        const plan = JSON.stringify((await client.query(`EXPLAIN (FORMAT JSON) ${execute('key1')}`)).rows[0]['QUERY PLAN']);
        expect(plan).not.toMatch(/"Node Type":"(Seq Scan|Bitmap Heap Scan)","[^}]*"Relation Name":"(api_keys|oauth_models|memberships)"/);
        expect(plan).toContain(kind === 'apiKey' ? '"Index Name":"api_keys_secret_hash_key"' : '"Index Name":"oauth_models_pkey"');
      }
    } finally {
      await client.query('DEALLOCATE ALL');
      client.release();
    }
  });
});
