import { systemClock } from '@loupe/http';
import { answerPlainRefresh, createOAuthProvider, REFRESH_TOKEN_READ, sha256, type RefreshTokenRead } from '@loupe/oauth';
import type { Provider } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Person, registerClient, startAuthServer, type AuthHarness } from './test/harness';
import { connect, exchange, refresh, tokenRequest, userinfo, type Client } from './test/flow';

let h: AuthHarness;
let client: Client;
let provider: Provider;
beforeAll(async () => {
  h = await startAuthServer();
  client = (await registerClient(h.url, { client_name: 'Plain Refresh' })).body as Client;
  // A second instance of the provider on the same database, as a second process of the service would hold.
  provider = await createOAuthProvider({ pool: h.pool, clock: systemClock, issuer: h.url, servicePrefix: 'loupe_', renderError: () => {} });
});
afterAll(() => h.close());

const read = async (token: string) =>
  (await h.pool.query<RefreshTokenRead>(REFRESH_TOKEN_READ, [sha256(token)])).rows[0];
const stored = async (model: string, value: string) =>
  (await h.pool.query<{ payload: Record<string, unknown>; grant_id: string; expires_at: Date }>(
    'SELECT payload, grant_id, expires_at FROM oauth_models WHERE model = $1 AND id_hash = $2', [model, sha256(value)])).rows[0]!;
const plain = (token: string, extra: Record<string, string> = {}) =>
  ({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id, ...extra });
const answer = async (params: Record<string, unknown>, token: string) =>
  answerPlainRefresh({ provider, pool: h.pool, clock: systemClock }, params, await read(token));

/** A payload without what differs from one issue to the next. */
const comparable = (payload: Record<string, unknown>) => {
  const { iat: _iat, exp: _exp, rotations: _rotations, ...rest } = payload;
  return rest;
};

async function freshTokens(email: string) {
  return (await exchange(h, client, await connect(new Person(h, email), client))).body as { refresh_token: string; access_token: string };
}

describe('a plain refresh, answered ahead of oidc-provider with its models (issue 26)', () => {
  it('issues what oidc-provider issues: the same response and the same stored tokens, which work', async () => {
    const tokens = await freshTokens('plain@acme.test');
    // Through oidc-provider: a `scope` parameter is not a plain refresh.
    const viaProvider = await tokenRequest(h, plain(tokens.refresh_token, { scope: 'mcp:read mcp:write' }));
    expect(viaProvider.status).toBe(200);
    const ours = await answer(plain(viaProvider.body.refresh_token), viaProvider.body.refresh_token);
    expect(ours).toBeDefined();
    expect(Object.keys(ours!)).toEqual(Object.keys(viaProvider.body));
    expect({ ...ours, access_token: '', refresh_token: '' }).toEqual({ ...viaProvider.body, access_token: '', refresh_token: '' });
    expect(ours!.access_token).toMatch(/^loupe_at_[\w-]{43}$/);
    expect(ours!.refresh_token).toMatch(/^loupe_rt_[\w-]{43}$/);

    for (const [model, key] of [['RefreshToken', 'refresh_token'], ['AccessToken', 'access_token']] as const) {
      const theirs = await stored(model, viaProvider.body[key]);
      const mine = await stored(model, ours![key] as string);
      expect(comparable(mine.payload)).toEqual(comparable(theirs.payload));
      expect(mine.grant_id).toBe(theirs.grant_id);
      expect(Math.abs(mine.expires_at.getTime() - theirs.expires_at.getTime())).toBeLessThan(60_000);
    }
    expect((await stored('RefreshToken', ours!.refresh_token as string)).payload.rotations).toBe(2);
    // The retired token is consumed; the new access token is answered at userinfo as oidc-provider's is
    // (without `openid` in its scope: insufficient_scope, not an unknown token); the new refresh token works.
    expect((await read(viaProvider.body.refresh_token))!.consumed_at).not.toBeNull();
    const [mine, theirs] = await Promise.all([userinfo(h, ours!.access_token as string), userinfo(h, viaProvider.body.access_token)]);
    expect([mine.status, mine.body]).toEqual([theirs.status, theirs.body]);
    expect(mine.status).toBe(403);
    expect((await userinfo(h, 'loupe_at_unknown')).status).toBe(401);
    const next = await refresh(h, client, ours!.refresh_token as string);
    expect(next.status).toBe(200);
    // Over HTTP the plain refresh carries the headers oidc-provider's answer carries (less the per-response ones).
    const headersOf = (res: { headers: Headers }) => [...res.headers.entries()].filter(([name]) => !['date', 'x-request-id', 'content-length'].includes(name));
    expect(headersOf(next)).toEqual(headersOf(viaProvider));
  });

  it('leaves every other request to oidc-provider, and writes nothing for it', async () => {
    const tokens = await freshTokens('not-plain@acme.test');
    const other = (await registerClient(h.url, { client_name: 'Another' })).body as Client;
    const cases: Array<[string, Record<string, unknown>]> = [
      ['a scope', plain(tokens.refresh_token, { scope: 'mcp:read' })],
      ['another client', { ...plain(tokens.refresh_token), client_id: other.client_id }],
      ['a parameter twice', { ...plain(tokens.refresh_token), client_id: [client.client_id, client.client_id] }],
      ['a client secret', plain(tokens.refresh_token, { client_secret: 'x' })],
      ['another grant', { ...plain(tokens.refresh_token), grant_type: 'authorization_code' }],
    ];
    for (const [what, params] of cases) expect([what, await answer(params, tokens.refresh_token)]).toEqual([what, undefined]);
    expect((await read(tokens.refresh_token))!.consumed_at).toBeNull();

    // A token already used (its grace and its replay are oidc-provider's), and one that has expired.
    const used = await refresh(h, client, tokens.refresh_token);
    expect(used.status).toBe(200);
    expect(await answer(plain(tokens.refresh_token), tokens.refresh_token)).toBeUndefined();
    await h.pool.query("UPDATE oauth_models SET payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::bigint - 1)) WHERE model = 'RefreshToken' AND id_hash = $1",
      [sha256(used.body.refresh_token)]);
    expect(await answer(plain(used.body.refresh_token), used.body.refresh_token)).toBeUndefined();
    const expired = await refresh(h, client, used.body.refresh_token);
    expect([expired.status, expired.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('of concurrent plain refreshes with one token exactly one is answered; the others fall through to invalid_grant', async () => {
    const tokens = await freshTokens('plain-race@acme.test');
    const row = await read(tokens.refresh_token);
    const answers = await Promise.all(Array.from({ length: 8 }, () =>
      answerPlainRefresh({ provider, pool: h.pool, clock: systemClock }, plain(tokens.refresh_token), row)));
    expect(answers.filter(Boolean)).toHaveLength(1);
    const late = await refresh(h, client, tokens.refresh_token);
    expect([late.status, late.body.error]).toEqual([400, 'invalid_grant']);
  });
});
