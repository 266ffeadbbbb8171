import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccessTokenVerifier } from '@loupe/oauth';
import { systemClock } from '@loupe/http';
import { Person, registerClient, startAuthServer, type AuthHarness } from './test/harness';
import { connect, exchange, refresh, tokenRequest, userinfo, type Client } from './test/flow';

let h: AuthHarness;
let client: Client;
beforeAll(async () => {
  h = await startAuthServer();
  client = (await registerClient(h.url, { client_name: 'Token Tests' })).body as Client;
});
afterAll(() => h.close());
afterEach(() => vi.useRealTimers());

const moveClock = (ms: number) => vi.setSystemTime(Date.now() + ms);
const fakeClock = () => vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });

describe('tokens (spec 5.6)', () => {
  it('exchanges a code for prefixed opaque tokens: bearer, 1 hour, no id_token', async () => {
    const c = await connect(new Person(h, 'tokens@acme.test'), client, { extra: { scope: 'mcp:read mcp:write openid email' } });
    const { status, body, headers } = await exchange(h, client, c);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toContain('no-store');
    expect(body.access_token).toMatch(/^loupe_at_[A-Za-z0-9_-]{43,}$/);
    expect(body.refresh_token).toMatch(/^loupe_rt_[A-Za-z0-9_-]{43,}$/);
    expect(body.token_type).toBe('bearer');
    expect(body.expires_in).toBe(3600);
    expect(body.id_token).toBeUndefined();
    expect(body.scope.split(' ').sort()).toEqual(['email', 'mcp:read', 'mcp:write', 'openid']);
    const info = await userinfo(h, body.access_token);
    expect(info.status).toBe(200);
    expect(info.body).toEqual({ sub: expect.stringMatching(/^usr_/), email: 'tokens@acme.test', email_verified: true });
  });

  it('userinfo: sub only without email, 401 without openid', async () => {
    const person = new Person(h, 'userinfo@acme.test');
    const withOpenid = await exchange(h, client, await connect(person, client, { extra: { scope: 'openid mcp:read' } }));
    expect((await userinfo(h, withOpenid.body.access_token)).body).toEqual({ sub: expect.stringMatching(/^usr_/) });
    const without = await exchange(h, client, await connect(person, client, { extra: { scope: 'mcp:read' } }));
    expect((await userinfo(h, without.body.access_token)).status).toBe(403);
  });

  it('a code works once; reusing it fails and revokes what it issued', async () => {
    const c = await connect(new Person(h, 'reuse@acme.test'), client);
    const first = await exchange(h, client, c);
    expect(first.status).toBe(200);
    const second = await exchange(h, client, c);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await refresh(h, client, first.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('PKCE mismatch, redirect_uri mismatch, client mismatch → invalid_grant', async () => {
    const person = new Person(h, 'mismatch@acme.test');
    const c1 = await connect(person, client);
    expect((await tokenRequest(h, { grant_type: 'authorization_code', code: c1.code, redirect_uri: c1.redirectUri, client_id: client.client_id, code_verifier: 'x'.repeat(43) })).body.error).toBe('invalid_grant');
    const c2 = await connect(person, client);
    expect((await tokenRequest(h, { grant_type: 'authorization_code', code: c2.code, redirect_uri: 'http://127.0.0.1:9999/other', client_id: client.client_id, code_verifier: c2.verifier })).body.error).toBe('invalid_grant');
    const other = (await registerClient(h.url)).body as Client;
    const c3 = await connect(person, client);
    expect((await tokenRequest(h, { grant_type: 'authorization_code', code: c3.code, redirect_uri: c3.redirectUri, client_id: other.client_id, code_verifier: c3.verifier })).body.error).toBe('invalid_grant');
  });

  it('codes expire after 10 minutes', async () => {
    const person = new Person(h, 'expiry@acme.test');
    fakeClock();
    const ok = await connect(person, client);
    moveClock(9 * 60_000 + 50_000);
    expect((await exchange(h, client, ok)).status).toBe(200);
    const late = await connect(person, client);
    moveClock(10 * 60_000 + 1000);
    const res = await exchange(h, client, late);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('unsupported grant types are refused', async () => {
    const res = await tokenRequest(h, { grant_type: 'client_credentials', client_id: client.client_id });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unsupported_grant_type');
  });
});

describe('refresh tokens: rotation, grace and replay (spec 5.6 rules 2–3)', () => {
  it('every refresh returns a new refresh token; the old one gets invalid_grant within 30 s and nothing else', async () => {
    fakeClock();
    const tokens = (await exchange(h, client, await connect(new Person(h, 'rotate@acme.test'), client))).body;
    const r1 = await refresh(h, client, tokens.refresh_token);
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(r1.body.access_token).toMatch(/^loupe_at_/);
    moveClock(29_000);
    const again = await refresh(h, client, tokens.refresh_token);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    // nothing else: the new family members still work
    expect((await userinfo(h, r1.body.access_token)).status).not.toBe(401);
    const r2 = await refresh(h, client, r1.body.refresh_token);
    expect(r2.status).toBe(200);
  });

  it('a retired refresh token presented after 30 s revokes the whole family', async () => {
    fakeClock();
    const tokens = (await exchange(h, client, await connect(new Person(h, 'replay@acme.test'), client, { extra: { scope: 'openid mcp:read' } }))).body;
    const r1 = await refresh(h, client, tokens.refresh_token);
    expect(r1.status).toBe(200);
    moveClock(31_000);
    const replay = await refresh(h, client, tokens.refresh_token);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await refresh(h, client, r1.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await userinfo(h, r1.body.access_token)).status).toBe(401);
  });

  it('20 concurrent refreshes of one token: exactly one new token', async () => {
    const tokens = (await exchange(h, client, await connect(new Person(h, 'race@acme.test'), client))).body;
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(h, client, tokens.refresh_token)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(results.filter((r) => r.status === 400).every((r) => r.body.error === 'invalid_grant')).toBe(true);
    expect((await refresh(h, client, ok[0]!.body.refresh_token)).status).toBe(200);
  });

  it('access tokens last 1 hour, refresh tokens 30 days from their rotation', async () => {
    fakeClock();
    const verify = createAccessTokenVerifier({ pool: h.pool, clock: systemClock, servicePrefix: 'loupe_' });
    const tokens = (await exchange(h, client, await connect(new Person(h, 'lifetimes@acme.test'), client))).body;
    moveClock(3599_000);
    expect((await verify(tokens.access_token)).ok).toBe(true);
    moveClock(2_000);
    expect(await verify(tokens.access_token)).toMatchObject({ ok: false, reason: 'expired' });
    const r1 = await refresh(h, client, tokens.refresh_token);
    expect(r1.status).toBe(200);
    moveClock(29 * 86400_000);
    const r2 = await refresh(h, client, r1.body.refresh_token);
    expect(r2.status).toBe(200);
    moveClock(29 * 86400_000);
    expect((await refresh(h, client, r2.body.refresh_token)).status).toBe(200); // day 58: each rotation lives 30 days
    const fresh = (await exchange(h, client, await connect(new Person(h, 'lifetimes2@acme.test'), client))).body;
    moveClock(30 * 86400_000 + 1000);
    expect((await refresh(h, client, fresh.refresh_token)).body.error).toBe('invalid_grant');
  });
});

describe('revocation (spec 5.7)', () => {
  it('always answers 200; revoking a refresh token ends its family, access tokens included', async () => {
    const tokens = (await exchange(h, client, await connect(new Person(h, 'revoke@acme.test'), client, { extra: { scope: 'openid' } }))).body;
    const revoke = (form: Record<string, string>) =>
      fetch(`${h.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
    expect((await revoke({ token: 'nonsense' })).status).toBe(200);
    expect((await revoke({})).status).toBe(200);
    expect((await userinfo(h, tokens.access_token)).status).toBe(200);
    const res = await revoke({ token: tokens.refresh_token, client_id: client.client_id });
    expect(res.status).toBe(200);
    expect((await userinfo(h, tokens.access_token)).status).toBe(401);
    expect((await refresh(h, client, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('revoking an access token ends only that token', async () => {
    const tokens = (await exchange(h, client, await connect(new Person(h, 'revoke-at@acme.test'), client, { extra: { scope: 'openid' } }))).body;
    await fetch(`${h.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: tokens.access_token }) });
    expect((await userinfo(h, tokens.access_token)).status).toBe(401);
    expect((await refresh(h, client, tokens.refresh_token)).status).toBe(200);
  });
});
