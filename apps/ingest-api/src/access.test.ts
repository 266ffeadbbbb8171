import { createRateLimiter } from '@loupe/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, rec, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('API keys on every endpoint', () => {
  const endpoints = ['POST /api/v1/ingest', 'GET /api/v1/ingest/batches', 'GET /api/v1/ingest/batches/bat_x'];
  async function call(endpoint: string, key: string | undefined) {
    const [method, path] = endpoint.split(' ') as [string, string];
    return method === 'POST' ? post(h.base, key, [rec(h.a)]) : get(h.base, key, path);
  }

  it.each(endpoints)('%s answers 401 for a missing, unknown or revoked key', async (endpoint) => {
    for (const key of [undefined, 'loupe_sk_unknown', 'nonsense', h.revokedKey]) {
      const r = await call(endpoint, key);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ error: 'UNAUTHORIZED' });
      expect(r.body.message).toEqual(expect.any(String));
    }
  });

  it('needs api:write to submit', async () => {
    const r = await post(h.base, h.a.readKey, [rec(h.a)]);
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/api:write/);
    expect((await post(h.base, h.mcpOnlyKey, [rec(h.a)])).status).toBe(403);
  });

  it('lets api:read or api:write list and read batches, and nothing else', async () => {
    expect((await get(h.base, h.a.readKey, '/api/v1/ingest/batches')).status).toBe(200);
    expect((await get(h.base, h.a.writeKey, '/api/v1/ingest/batches')).status).toBe(200);
    expect((await get(h.base, h.mcpOnlyKey, '/api/v1/ingest/batches')).status).toBe(403);
    expect((await get(h.base, h.mcpOnlyKey, '/api/v1/ingest/batches/bat_x')).status).toBe(403);
  });
});

describe('rate limit', () => {
  it('allows 10 requests per second per key, across instances sharing the database, then 429 with retryAfter', async () => {
    let now = 5_000_000_000_000;
    const clock = { now: () => now };
    const limiter = () => createRateLimiter(h.t.pool, { limit: 10, windowMs: 1000, clock });
    const one = await h.startApp({ rateLimiter: limiter() });
    const two = await h.startApp({ rateLimiter: limiter() });
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, i) => get(i % 2 ? one : two, h.a.readKey, '/api/v1/ingest/batches')),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(4);
    expect(limited[0]!.body).toMatchObject({ error: 'RATE_LIMITED', retryAfter: 1 });
    expect(limited[0]!.headers.get('retry-after')).toBe('1');
    expect((await get(one, h.b.readKey, '/api/v1/ingest/batches')).status).toBe(200); // another key has its own budget
    now += 1000;
    expect((await get(one, h.a.readKey, '/api/v1/ingest/batches')).status).toBe(200);
  });

  it('counts submissions too', async () => {
    const now = 6_000_000_000_000;
    const base = await h.startApp({ rateLimiter: createRateLimiter(h.t.pool, { limit: 10, windowMs: 1000, clock: { now: () => now } }) });
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push(await post(base, h.b.writeKey, [rec(h.b)]));
    expect(answers.map((a) => a.status)).toEqual([...Array(10).fill(202), 429]);
  });
});

describe('tenants', () => {
  it('never shows a batch of another workspace', async () => {
    const mine = await post(h.base, h.a.writeKey, [rec(h.a)]);
    const theirs = await get(h.base, h.b.readKey, `/api/v1/ingest/batches/${mine.body.batchId}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ error: 'NOT_FOUND' });
    const list = await get(h.base, h.b.readKey, '/api/v1/ingest/batches?limit=100');
    expect(list.body.batches.map((b: { batchId: string }) => b.batchId)).not.toContain(mine.body.batchId);
    expect((await get(h.base, h.a.readKey, `/api/v1/ingest/batches/${mine.body.batchId}`)).status).toBe(200);
  });
});
