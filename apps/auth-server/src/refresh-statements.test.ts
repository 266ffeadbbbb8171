import { createHash } from 'node:crypto';
import { statementsOf } from '@loupe/db/testing';
import { createRateLimiter, systemClock } from '@loupe/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthLimiters, takeRefreshLimits } from './rate-limits';
import { Person, registerClient, startAuthServer, type AuthHarness } from './test/harness';
import { connect, exchange, refresh, type Client } from './test/flow';

let h: AuthHarness;
let client: Client;
beforeAll(async () => {
  h = await startAuthServer();
  client = (await registerClient(h.url, { client_name: 'Refresh Statements' })).body as Client;
});
afterAll(() => h.close());

describe('a refresh in few statements (issue 26 item 2)', () => {
  it('two statements: the limits with the family and the token with its grant and user; the rotation', async () => {
    const tokens = (await exchange(h, client, await connect(new Person(h, 'statements@acme.test'), client))).body;
    let current = tokens.refresh_token as string;
    await refresh(h, client, current).then((r) => void (current = r.body.refresh_token)); // warm: the client is read once
    const seen = await statementsOf(async () => {
      const r = await refresh(h, client, current);
      expect(r.status).toBe(200);
      current = r.body.refresh_token;
    });
    expect(seen).toEqual(['oauth-refresh-limits', 'oauth-rotate-refresh-token']);
    expect((await refresh(h, client, current)).status).toBe(200); // the rotated token works
  });

  it('a grant outlives its newest refresh token, and is written again only when it would end first (a day past the token)', async () => {
    const sha = (v: string) => createHash('sha256').update(v).digest('hex');
    const tokenRow = async (token: string) => (await h.pool.query<{ grant_id: string; expires_at: Date; exp: number }>(
      "SELECT grant_id, expires_at, (payload->>'exp')::bigint AS exp FROM oauth_models WHERE model = 'RefreshToken' AND id_hash = $1", [sha(token)])).rows[0]!;
    const grantRow = async (grantId: string) => (await h.pool.query<{ expires_at: Date; exp: number; xmin: string }>(
      "SELECT expires_at, (payload->>'exp')::bigint AS exp, xmin::text AS xmin FROM oauth_models WHERE model = 'Grant' AND id_hash = $1", [sha(grantId)])).rows[0]!;
    const tokens = (await exchange(h, client, await connect(new Person(h, 'grant-life@acme.test'), client))).body;
    const first = await refresh(h, client, tokens.refresh_token);
    expect(first.status).toBe(200);
    const t1 = await tokenRow(first.body.refresh_token);
    const g1 = await grantRow(t1.grant_id);
    expect(g1.expires_at.getTime()).toBeGreaterThanOrEqual(t1.expires_at.getTime());
    expect(Number(g1.exp)).toBeGreaterThanOrEqual(Number(t1.exp));

    const second = await refresh(h, client, first.body.refresh_token);
    expect(second.status).toBe(200);
    const t2 = await tokenRow(second.body.refresh_token);
    const g2 = await grantRow(t1.grant_id);
    expect(g2.xmin).toBe(g1.xmin); // not written again: it still outlives the new token
    expect(g2.expires_at.getTime()).toBeGreaterThanOrEqual(t2.expires_at.getTime());

    // A grant that would end before the next token is extended to a day past it.
    await h.pool.query(
      "UPDATE oauth_models SET expires_at = now() + interval '1 minute', payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::bigint + 60)) WHERE model = 'Grant' AND id_hash = $1",
      [sha(t1.grant_id)],
    );
    const third = await refresh(h, client, second.body.refresh_token);
    expect(third.status).toBe(200);
    const t3 = await tokenRow(third.body.refresh_token);
    const g3 = await grantRow(t1.grant_id);
    expect(g3.expires_at.getTime()).toBe(t3.expires_at.getTime() + 86_400_000);
    expect(Number(g3.exp)).toBe(Math.ceil(t3.expires_at.getTime() / 1000) + 86_400);
    expect((await refresh(h, client, third.body.refresh_token)).status).toBe(200);
  });

  it('the rotation writes all or nothing: the loser of a race writes no successor, and the winner\'s tokens work', async () => {
    const tokens = (await exchange(h, client, await connect(new Person(h, 'race-rows@acme.test'), client))).body;
    const before = await h.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM oauth_models WHERE model IN ('AccessToken', 'RefreshToken')");
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(h, client, tokens.refresh_token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const after = await h.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM oauth_models WHERE model IN ('AccessToken', 'RefreshToken')");
    expect(after.rows[0]!.n - before.rows[0]!.n).toBe(2); // one refresh token and one access token, whoever won
  });

  it('concurrent refreshes share the limits statement: each is counted as if alone, in arrival order, and reads its own token', async () => {
    const limiters = createOAuthLimiters(h.pool, systemClock);
    const perIp = createRateLimiter(h.pool, { limit: 1_000, windowMs: 60_000, clock: systemClock });
    const tokens = await Promise.all(['shared-1@acme.test', 'shared-2@acme.test'].map(async (email) =>
      (await exchange(h, client, await connect(new Person(h, email), client))).body.refresh_token as string));
    const ip = { limiter: perIp, key: `ip:shared-${Date.now()}` };
    // Started together: the first goes out alone, the seven that arrive while it is out go in one statement.
    const sent = [tokens[0]!, tokens[0]!, tokens[1]!, tokens[0]!, 'loupe_rt_unknown', tokens[1]!, tokens[0]!, tokens[1]!];
    let answers: Awaited<ReturnType<typeof takeRefreshLimits>>[] = [];
    const seen = await statementsOf(async () => {
      answers = await Promise.all(sent.map((token) => takeRefreshLimits({}, h.pool, limiters.refresh, client.client_id, token, ip)));
    });
    expect(seen).toEqual(['oauth-refresh-limits', 'oauth-refresh-limits']);
    expect(answers.map((a) => a.ip!.remaining)).toEqual([999, 998, 997, 996, 995, 994, 993, 992]);
    // Each family counted on its own, in the order its requests came (60 an hour each).
    expect(answers.map((a) => a.refresh.remaining)).toEqual([59, 58, 59, 57, 59, 58, 56, 57]);
    const grantOf = async (token: string) => (await h.pool.query<{ grant_id: string }>(
      "SELECT grant_id FROM oauth_models WHERE model = 'RefreshToken' AND id_hash = $1", [createHash('sha256').update(token).digest('hex')])).rows[0]!.grant_id;
    const grants = await Promise.all(tokens.map(grantOf));
    expect(answers.map((a) => a.token?.grant_id)).toEqual(sent.map((token) => grants[tokens.indexOf(token)]));
  });

  it('a person removed from the workspace cannot refresh: invalid_grant at once, nothing written', async () => {
    const person = new Person(h, 'leaver@acme.test');
    const tokens = (await exchange(h, client, await connect(person, client))).body;
    const r1 = await refresh(h, client, tokens.refresh_token);
    expect(r1.status).toBe(200);
    const { rows } = await h.pool.query<{ workspace_id: string; user_id: string }>(
      "SELECT g.workspace_id, g.user_id FROM oauth_grants g JOIN users u ON u.id = g.user_id WHERE u.email = 'leaver@acme.test'",
    );
    await h.pool.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [rows[0]!.workspace_id, rows[0]!.user_id]);
    const r2 = await refresh(h, client, r1.body.refresh_token);
    expect(r2.status).toBe(400);
    expect(r2.body.error).toBe('invalid_grant');
    const { rows: consumed } = await h.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM oauth_models WHERE model = 'RefreshToken' AND grant_id = (SELECT grant_id FROM oauth_grants WHERE user_id = $1 LIMIT 1) AND consumed_at IS NULL",
      [rows[0]!.user_id],
    );
    expect(consumed[0]!.n).toBe(1); // the refresh token was not consumed: nothing was written
  });

  it('every request to the token endpoint is counted once per IP, whatever it asks (the route counts it, not the shell)', async () => {
    const ipCount = async () => (await h.pool.query<{ n: number }>("SELECT coalesce(sum(count), 0)::int AS n FROM rate_limit_counters WHERE key LIKE 'ip:%'")).rows[0]!.n;
    const tokens = (await exchange(h, client, await connect(new Person(h, 'counted@acme.test'), client))).body;
    const post = (body: string) => fetch(`${h.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    const requests: Array<[string, () => Promise<Response>, number]> = [
      ['refresh', () => post(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }).toString()), 200],
      ['unknown refresh token', () => post(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'loupe_rt_nope', client_id: client.client_id }).toString()), 400],
      ['code', () => post(new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: client.client_id }).toString()), 400],
      ['an unknown client', () => post('grant_type=password&client_id=x'), 401],
      ['a client_id no client can have', () => post('grant_type=authorization_code&code=x&client_id=%00'), 400],
      ['a foreign resource', () => post(`grant_type=refresh_token&resource=${encodeURIComponent('https://evil.example.com/')}`), 400],
      ['a body too large', () => post(`a=${'x'.repeat(70_000)}`), 413],
      ['GET', () => fetch(`${h.url}/oauth/token`), 404],
    ];
    for (const [what, send, status] of requests) {
      const before = await ipCount();
      const res = await send();
      await res.arrayBuffer();
      expect([what, res.status]).toEqual([what, status]);
      expect([what, (await ipCount()) - before]).toEqual([what, 1]);
    }
  });

  it('a client_id no client can have is refused alone, before it shares a statement: the requests beside it are answered as if it never came (issue 41)', async () => {
    const tokens = await Promise.all(['beside-1@acme.test', 'beside-2@acme.test'].map(async (email) =>
      (await exchange(h, client, await connect(new Person(h, email), client))).body.refresh_token as string));
    const post = (body: Record<string, string>) => fetch(`${h.url}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString(),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
    const hostile = ['\u0000', `cli_${'\u0000'.repeat(3)}`, 'x'.repeat(40_000), 'clïent', 'a\nb'];
    const answers = await Promise.all([
      ...hostile.flatMap((clientId) => ['authorization_code', 'refresh_token'].map((grant) =>
        post({ grant_type: grant, code: 'x', refresh_token: tokens[0]!, client_id: clientId }).then((r) => ({ who: 'hostile', ...r })))),
      ...tokens.map((token) => post({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id }).then((r) => ({ who: 'victim', ...r }))),
      post({ grant_type: 'authorization_code', code: 'not-a-code', client_id: client.client_id }).then((r) => ({ who: 'victim-code', ...r })),
    ]);
    for (const a of answers.filter((x) => x.who === 'hostile')) {
      expect([a.status, a.body.error]).toEqual([400, 'invalid_request']);
      expect(a.body.error_description).toMatch(/^client_id (must be printable ASCII \(RFC 6749, Appendix A\.1\); it holds U\+[0-9A-F]{4} at position \d+|is 40000 characters long; at most 2048 are accepted)$/);
    }
    expect(answers.filter((x) => x.who === 'victim').map((a) => a.status)).toEqual([200, 200]);
    const alone = await post({ grant_type: 'authorization_code', code: 'not-a-code', client_id: client.client_id });
    expect(answers.find((x) => x.who === 'victim-code')).toEqual({ who: 'victim-code', ...alone });
  });
});
