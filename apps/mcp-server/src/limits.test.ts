import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_LIMIT } from './app';
import { issueAccessToken, rawPost, seedWorkspace, startMcpServer, type McpHarness } from './test/harness';

// Two instances on one database, both on a clock the test moves: limits are counted in PostgreSQL.
let now = Date.parse('2026-11-22T10:00:00Z');
const clock = { now: () => now };
let a: McpHarness;
let b: McpHarness;
beforeAll(async () => {
  a = await startMcpServer({ clock, perIp: { limit: 1_000_000 } });
  b = await startMcpServer({ clock, database: a.t, perIp: { limit: 1_000_000 } });
});
afterAll(async () => {
  await b.close();
  await a.close();
});

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const listOn = (h: McpHarness, headers: Record<string, string>) => rawPost(h, LIST, headers);

describe('MCP rate limits (spec 8.1, 7.3)', () => {
  it('allows 1,000 requests an hour per API key across instances, refuses the 1,001st with the key body, and opens again next hour', async () => {
    const w = await seedWorkspace(a, 'Keyed');
    const headers = { 'x-api-key': w.key };
    let allowed = 0;
    for (let round = 0; round < 50; round++) {
      const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => listOn(i % 2 ? b : a, headers).then(async (r) => (await r.arrayBuffer(), r.status))));
      allowed += statuses.filter((s) => s === 200).length;
    }
    expect(allowed).toBe(CREDENTIAL_LIMIT.limit);
    const refused = await listOn(b, headers);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['error', 'remaining', 'retryAfter']);
    expect(body).toMatchObject({ error: expect.stringMatching(/^Rate limit exceeded/), remaining: 0, retryAfter: 3600 });
    expect(refused.headers.get('retry-after')).toBe('3600');
    // Another key of the same workspace has its own count.
    expect((await listOn(a, { 'x-api-key': w.readOnlyKey })).status).toBe(200);
    now += 3600_000;
    expect((await listOn(a, headers)).status).toBe(200);
  }, 120_000);

  it('counts per access token, answering the OAuth body past 1,000 an hour', async () => {
    const w = await seedWorkspace(a, 'Bearer');
    const token = await issueAccessToken(a, w);
    const { createHash } = await import('node:crypto');
    const windowStart = Math.floor(now / 3600_000) * 3600_000;
    // 998 requests already counted this hour (sending them would only repeat the test above).
    await a.pool.query('INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 998)', [
      `mcp-token:${createHash('sha256').update(token).digest('base64url')}`, windowStart,
    ]);
    const headers = { authorization: `Bearer ${token}` };
    expect((await listOn(a, headers)).status).toBe(200); // 999th
    expect((await listOn(b, headers)).status).toBe(200); // 1,000th
    const refused = await listOn(a, headers);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description', 'retry_after']);
    expect(body).toMatchObject({ error: 'rate_limit_exceeded', retry_after: 3600 - (now - windowStart) / 1000 });
    expect(refused.headers.get('retry-after')).toBe(String(body.retry_after));
    // A new token (after a refresh) starts afresh.
    expect((await listOn(a, { authorization: `Bearer ${await issueAccessToken(a, w)}` })).status).toBe(200);
  });
});

describe('per-IP limit over the whole service (spec 8.1)', () => {
  let c: McpHarness;
  let d: McpHarness;
  let proxied: McpHarness;
  beforeAll(async () => {
    c = await startMcpServer({ clock, perIp: {} });
    d = await startMcpServer({ clock, database: c.t, perIp: {} });
    proxied = await startMcpServer({ clock, database: c.t, perIp: { trustedProxies: '10.0.0.0/8' } });
  });
  afterAll(async () => {
    await proxied.close();
    await d.close();
    await c.close();
  });

  it('allows 2,000 requests a minute from one address across instances and answers the 2,001st with the per-IP body', async () => {
    const get = (h: McpHarness) => fetch(`${h.url}/.well-known/oauth-protected-resource`).then(async (r) => (await r.arrayBuffer(), r.status));
    let ok = 0;
    for (let round = 0; round < 40; round++) {
      const statuses = await Promise.all(Array.from({ length: 50 }, (_, i) => get(i % 2 ? d : c)));
      ok += statuses.filter((s) => s === 200).length;
    }
    expect(ok).toBe(2000);
    const refused = await fetch(`${c.url}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ msg: expect.stringMatching(/IP address/), retryAfterSeconds: expect.any(Number), limit: 2000, windowSeconds: 60 });
    expect(refused.headers.get('retry-after')).toBe(String(body.retryAfterSeconds));
    expect((await fetch(`${c.url}/healthz`)).status).not.toBe(429); // health probes are not counted (no health route here: 404)
    now += 60_000;
    expect(await get(d)).toBe(200);
  }, 120_000);

  it('believes X-Forwarded-For only from a configured trusted proxy', async () => {
    now += 60_000;
    const windowStart = Math.floor(now / 60_000) * 60_000;
    await c.pool.query('INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 2000)', ['ip:203.0.113.9', windowStart]);
    const forged = { 'x-forwarded-for': '203.0.113.9' };
    // Loopback is trusted by default: the forwarded address is the client's, and it is over its limit.
    expect((await fetch(`${c.url}/.well-known/oauth-protected-resource`, { headers: forged })).status).toBe(429);
    // Only 10.0.0.0/8 is trusted here, so the header from 127.0.0.1 is ignored and 127.0.0.1 is counted.
    expect((await fetch(`${proxied.url}/.well-known/oauth-protected-resource`, { headers: forged })).status).toBe(200);
  });
});
