import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessTokenVerifier } from '@loupe/oauth';
import { systemClock } from '@loupe/http';
import { addMember, Person, registerClient, startAuthServer, type AuthHarness } from './test/harness';
import { connect, exchange, refresh, userinfo, type Client } from './test/flow';

let h: AuthHarness;
let client: Client;
beforeAll(async () => {
  h = await startAuthServer();
  client = (await registerClient(h.url, { client_name: 'Security Tests' })).body as Client;
});
afterAll(() => h.close());

/** Every row of every table as text: what a database dump would hold. */
async function dump(): Promise<string> {
  const { rows: tables } = await h.pool.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  let out = '';
  for (const { table_name } of tables) {
    const { rows } = await h.pool.query(`SELECT row_to_json(t)::text AS j FROM "${table_name}" t`);
    out += rows.map((r) => r.j).join('\n');
  }
  return out;
}

describe('stored secrets (spec 5.6 rule 1)', () => {
  it('a database dump holds no usable code, access token, refresh token or session', async () => {
    const person = new Person(h, 'dump@acme.test');
    const c = await connect(person, client, { extra: { scope: 'openid mcp:read' } });
    const unused = await connect(person, client);
    const tokens = (await exchange(h, client, c)).body;
    const rotated = (await refresh(h, client, tokens.refresh_token)).body;
    const text = await dump();
    // express-session's cookie is `s:<id>.<signature>`, URL-encoded: the id is the secret.
    const cookies = person.jar.header().split('; ').map((kv) => decodeURIComponent(kv.slice(kv.indexOf('=') + 1)).replace(/^s:/, '').split('.')[0]!).filter((v) => v.length > 20);
    for (const secret of [c.code, unused.code, tokens.access_token, tokens.refresh_token, rotated.access_token, rotated.refresh_token, ...cookies]) {
      expect(secret.length).toBeGreaterThan(20);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.replace(/^loupe_(at|rt)_/, ''));
    }
    // and the values still work: they are stored as their hashes
    expect((await userinfo(h, rotated.access_token)).status).toBe(200);
    expect((await exchange(h, client, unused)).status).toBe(200);
  });
});

describe('membership (spec 5.6 rule 4, 5.7 rule 2)', () => {
  it('a user removed from the workspace: resource check refuses at once, refresh and userinfo stop', async () => {
    const { workspaceId, userId } = await addMember(h.pool, 'leaver@acme.test', 'Left behind');
    const tokens = (await exchange(h, client, await connect(new Person(h, 'leaver@acme.test'), client, { extra: { scope: 'openid mcp:read' } }))).body;
    const verify = createAccessTokenVerifier({ pool: h.pool, clock: systemClock, servicePrefix: 'loupe_' });
    expect(await verify(tokens.access_token)).toMatchObject({ ok: true, token: { userId, workspaceId, clientId: client.client_id, scopes: ['openid', 'mcp:read'] } });
    await h.pool.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [workspaceId, userId]);
    expect(await verify(tokens.access_token)).toMatchObject({ ok: false, reason: 'not_a_member' });
    expect((await userinfo(h, tokens.access_token)).status).toBe(401);
    expect((await refresh(h, client, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('a deleted account: everything stops', async () => {
    await addMember(h.pool, 'deleted@acme.test', 'Gone');
    const tokens = (await exchange(h, client, await connect(new Person(h, 'deleted@acme.test'), client, { extra: { scope: 'openid mcp:read' } }))).body;
    await h.pool.query('DELETE FROM users WHERE email = $1', ['deleted@acme.test']);
    const verify = createAccessTokenVerifier({ pool: h.pool, clock: systemClock, servicePrefix: 'loupe_' });
    expect((await verify(tokens.access_token)).ok).toBe(false);
    expect((await userinfo(h, tokens.access_token)).status).toBe(401);
    expect((await refresh(h, client, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('the resource check refuses malformed and unknown tokens with a reason', async () => {
    const verify = createAccessTokenVerifier({ pool: h.pool, clock: systemClock, servicePrefix: 'loupe_' });
    expect(await verify('nonsense')).toMatchObject({ ok: false, reason: 'malformed' });
    expect(await verify('loupe_at_' + 'a'.repeat(43))).toMatchObject({ ok: false, reason: 'unknown' });
  });
});

describe('unreadable bodies on the OAuth endpoints (found by e2e/src/mcp-hostile.slow.test.ts, 500s before)', () => {
  it('answers an oversized form, too many parameters or another charset in the OAuth error shape', async () => {
    const post = (path: string, body: string, type = 'application/x-www-form-urlencoded') =>
      fetch(`${h.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body }).then(async (r) => [r.status, await r.json()]);
    const oversized = `grant_type=refresh_token&refresh_token=${'é'.repeat(40_000)}`;
    const many = Array.from({ length: 150 }, (_, i) => `p${i}=1`).join('&');
    expect(await post('/oauth/token', oversized)).toEqual([413, { error: 'invalid_request', error_description: expect.stringContaining('64 KB') }]);
    expect(await post('/oauth/revoke', many)).toEqual([413, { error: 'invalid_request', error_description: expect.stringContaining('100 parameters') }]);
    expect(await post('/oauth/token', 'grant_type=refresh_token', 'application/x-www-form-urlencoded; charset=koi8-r')).toEqual([400, { error: 'invalid_request', error_description: expect.any(String) }]);
    expect(await post('/oauth/authorize', oversized)).toEqual([413, expect.objectContaining({ error: 'invalid_request' })]);
  });
});
