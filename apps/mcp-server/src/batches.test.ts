import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_LIMIT } from './app';
import { MCP_MAX_BATCH_MESSAGES } from './post-transport';
import { issueAccessToken, rawPost, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

// JSON-RPC batches against the limits (issue 41 finding 4). A clock the test holds still, so the
// counters' windows are known; the per-IP limit in front, as deployed.
const now = Date.parse('2026-11-23T10:20:30Z');
const clock = { now: () => now };
const PER_IP = 1_000_000;
let h: McpHarness;
beforeAll(async () => {
  h = await startMcpServer({ clock, perIp: { limit: PER_IP } });
});
afterAll(() => h.close());

const callProducts = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_products', arguments: {} } });
const cancel = (requestId: number | string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the user stopped it' } });
const hourStart = Math.floor(now / 3600_000) * 3600_000;
const keyCounter = (secret: string, prefix = 'mcp-key') => `${prefix}:${createHash('sha256').update(secret).digest('base64url')}`;
const counted = async (key: string) =>
  (await h.pool.query<{ count: number }>('SELECT count FROM rate_limit_counters WHERE key = $1 AND window_start = $2', [key, hourStart])).rows[0]?.count ?? 0;
const charges = async (w: Workspace) =>
  (await h.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM credit_ledger WHERE workspace_id = $1 AND kind = 'charge'", [w.workspaceId])).rows[0]!.n;
/** Charges of read-only calls are committed in shared transactions: wait for them to settle before counting. */
const settle = () => new Promise((r) => setTimeout(r, 200));

describe('batches under 2025-06-18 and later (batching removed from MCP)', () => {
  it.each(['2025-06-18', '2025-11-25', '2026-07-28'])('refuses a batch of 100 calls under %s with 400 -32600 naming the reason: nothing run, charged or counted per message', async (version) => {
    const w = await seedWorkspace(h, `No batches ${version}`);
    const res = await rawPost(h, Array.from({ length: 100 }, (_, i) => callProducts(i + 1)), { 'x-api-key': w.key, 'mcp-protocol-version': version });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0', id: null,
      error: { code: -32600, message: expect.stringMatching(new RegExp(`^Invalid Request: batches are not supported in protocol version ${version} \\(JSON-RPC batching was removed from MCP in 2025-06-18\\)\\. Nothing was run`)) },
    });
    await settle();
    expect(await charges(w)).toBe(0);
    // Counted as the one HTTP request it is, like any refused request: not as 100.
    expect(await counted(keyCounter(w.key))).toBe(1);
  });
});

describe('batches under 2025-03-26 and before: every message counts', () => {
  it('counts each message against the key\'s hourly limit and refuses the messages past it, with the key\'s rate-limit body as data', async () => {
    const w = await seedWorkspace(h, 'Batcher');
    // 995 of the key's 1,000 counted this hour: 5 left.
    await h.pool.query('INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 995)', [keyCounter(w.key), hourStart]);
    const res = await rawPost(h, Array.from({ length: 8 }, (_, i) => callProducts(i + 1)), { 'x-api-key': w.key, 'mcp-protocol-version': '2025-03-26' });
    expect(res.status).toBe(200);
    const answers = (await res.json()) as any[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const a of answers.slice(0, 5)) expect(a.result.isError).toBeFalsy();
    const retryAfter = (hourStart + 3600_000 - now) / 1000;
    for (const a of answers.slice(5)) {
      expect(a).toEqual({
        jsonrpc: '2.0', id: a.id,
        error: {
          code: -32000,
          message: `Rate limit exceeded: this message of the batch was not run. Rate limit exceeded for this API key (at most ${CREDENTIAL_LIMIT.limit} MCP requests an hour). Retry in ${retryAfter} seconds.`,
          data: { error: expect.stringMatching(/^Rate limit exceeded for this API key/), retryAfter, remaining: 0 },
        },
      });
    }
    expect(await counted(keyCounter(w.key))).toBe(1003);
    await settle();
    expect(await charges(w)).toBe(5);
    // The hour is spent: the next POST is refused whole.
    expect((await rawPost(h, callProducts(9), { 'x-api-key': w.key })).status).toBe(429);
  });

  it('counts a batch without MCP-Protocol-Version (taken as 2025-03-26) message by message, per access token too', async () => {
    const w = await seedWorkspace(h, 'Tokened');
    const token = await issueAccessToken(h, w);
    await h.pool.query('INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 998)', [keyCounter(token, 'mcp-token'), hourStart]);
    const res = await rawPost(h, [callProducts('a'), { jsonrpc: '2.0', method: 'notifications/initialized' }, callProducts('b'), callProducts('c')], { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    const answers = (await res.json()) as any[];
    // The POST and the call 'a' are the 999th, the notification the 1,000th: 'b' and 'c' are past the limit.
    expect(answers.map((a) => [a.id, a.error?.data?.error ?? 'ran'])).toEqual([['a', 'ran'], ['b', 'rate_limit_exceeded'], ['c', 'rate_limit_exceeded']]);
    expect(answers[1].error.data).toEqual({ error: 'rate_limit_exceeded', error_description: expect.stringMatching(/^Too many requests with this access token/), retry_after: expect.any(Number) });
    expect(await counted(keyCounter(token, 'mcp-token'))).toBe(1002);
  });

  it('counts each message against the per-IP limit, refusing the messages past it with the per-IP body as data', async () => {
    const w = await seedWorkspace(h, 'Crowded');
    const minuteStart = Math.floor(now / 60_000) * 60_000;
    await h.pool.query('INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, $3)', ['ip:198.51.100.7', minuteStart, PER_IP - 3]);
    const res = await rawPost(h, Array.from({ length: 6 }, (_, i) => callProducts(i + 1)), { 'x-api-key': w.key, 'x-forwarded-for': '198.51.100.7' });
    const answers = (await res.json()) as any[];
    expect(answers.filter((a) => a.result).map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[3].error).toMatchObject({ code: -32000, data: { msg: expect.stringMatching(/IP address/), retryAfterSeconds: expect.any(Number), limit: PER_IP } });
  });

  it(`refuses a batch over ${MCP_MAX_BATCH_MESSAGES} messages whole, running and counting none of its messages`, async () => {
    const w = await seedWorkspace(h, 'Too many');
    const res = await rawPost(h, Array.from({ length: MCP_MAX_BATCH_MESSAGES + 1 }, (_, i) => callProducts(i + 1)), { 'x-api-key': w.key, 'mcp-protocol-version': '2025-03-26' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ code: -32600, message: expect.stringMatching(`^Invalid Request: Batch must not exceed ${MCP_MAX_BATCH_MESSAGES} messages`) });
    expect(await counted(keyCounter(w.key))).toBe(1);
    await settle();
    expect(await charges(w)).toBe(0);
  });

  it('answers a batch holding a call and its cancellation at once, without the cancelled call, and charges only what ran', async () => {
    const w = await seedWorkspace(h, 'Canceller');
    const headers = { 'x-api-key': w.key, 'mcp-protocol-version': '2025-03-26' };
    const res = await rawPost(h, [callProducts(1), cancel(1), callProducts(2)], headers).then(async (r) => ({ status: r.status, body: (await r.json()) as any[] }));
    expect(res.status).toBe(200);
    expect(res.body.map((a) => a.id)).toEqual([2]);
    // Nothing left to answer: 202 at once (the connection and the body's reservation are released).
    const alone = await fetch(h.endpoint, {
      method: 'POST', signal: AbortSignal.timeout(5000),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify([callProducts(3), cancel(3)]),
    });
    expect(alone.status).toBe(202);
    expect(await alone.text()).toBe('');
    await settle();
    expect(await charges(w)).toBe(1);
  });
});
