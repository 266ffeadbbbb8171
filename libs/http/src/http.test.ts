import pg from 'pg';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, BodyTooLargeError, MAX_RATE_WINDOW_MS, createLogger, createRateLimiter, errorHandler, listen, readBoundedBody, requestContext, takeCost } from './index';

function bodyOf(parts: string[], headers: Record<string, unknown> = {}) {
  return Object.assign(Readable.from(parts.map((p) => Buffer.from(p))), { headers });
}

describe('readBoundedBody', () => {
  it('reads up to the limit and refuses one byte more', async () => {
    expect((await readBoundedBody(bodyOf(['ab', 'cd']), 4)).toString()).toBe('abcd');
    await expect(readBoundedBody(bodyOf(['ab', 'cde']), 4)).rejects.toBeInstanceOf(BodyTooLargeError);
  });
  it('refuses a declared length over the limit without keeping any of it', async () => {
    await expect(readBoundedBody(bodyOf([], { 'content-length': '5' }), 4)).rejects.toBeInstanceOf(BodyTooLargeError);
    await expect(readBoundedBody(bodyOf(['abcde'], { 'content-length': '5' }), 4)).rejects.toBeInstanceOf(BodyTooLargeError);
  });
  it('reads an oversized body to its end (so the sender can read the answer), up to four times the limit', async () => {
    const read: string[] = [];
    const tracked = (parts: string[]) => Object.assign(Readable.from((function* () {
      for (const p of parts) {
        read.push(p);
        yield Buffer.from(p);
      }
    })()), { headers: {} });
    await expect(readBoundedBody(tracked(['abc', 'def', 'ghi']), 4)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(read).toEqual(['abc', 'def', 'ghi']);
    read.length = 0;
    await expect(readBoundedBody(tracked(['abcdefgh', 'ijklmnop', 'qrstuvwx', 'never read']), 4)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(read).not.toContain('never read');
  });
});

describe('errorHandler', () => {
  it('answers the shared shape and hides unexpected errors', async () => {
    const app = express();
    app.use(requestContext(createLogger('silent')));
    app.get('/known', () => {
      throw new ApiError(429, 'RATE_LIMITED', 'slow down', { retryAfter: 1, headers: { 'retry-after': '1' } });
    });
    app.get('/boom', () => {
      throw new Error('secret internals');
    });
    app.get('/deadlock', () => {
      throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    });
    app.use(errorHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const known = await fetch(`${base}/known`);
    expect(known.status).toBe(429);
    expect(known.headers.get('retry-after')).toBe('1');
    expect(await known.json()).toEqual({ error: 'RATE_LIMITED', message: 'slow down', retryAfter: 1 });
    const boom = await fetch(`${base}/boom`);
    expect(boom.status).toBe(500);
    const body = (await boom.json()) as { error: string };
    expect(body.error).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(body)).not.toMatch(/secret internals|at .*\.ts/);
    const deadlock = await fetch(`${base}/deadlock`);
    expect(deadlock.status).toBe(503);
    expect(deadlock.headers.get('retry-after')).toBe('1');
    expect(await deadlock.json()).toMatchObject({ error: 'SERVICE_UNAVAILABLE', retryAfter: 1 });
    server.close();
  });

  it('answers a NUL character that PostgreSQL refuses (through pg or Prisma) with 400, not a 500', async () => {
    const t = await createTestDatabase();
    const app = express();
    app.use(requestContext(createLogger('silent')));
    app.get('/pg/:id', async (req, _res, next) => void (await t.pool.query('SELECT id FROM workspaces WHERE id = $1', [req.params.id]).catch(next)));
    app.get('/prisma/:id', async (req, _res, next) => void (await t.db.workspace.findMany({ where: { id: req.params.id } }).catch(next)));
    app.use(errorHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      for (const path of ['/pg/a%00b', '/prisma/a%00b']) {
        const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}${path}`);
        expect([path, res.status, ((await res.json()) as { message: string }).message]).toEqual([path, 400, expect.stringContaining('NUL character')]);
      }
    } finally {
      server.close();
      await t.close();
    }
  });

  it('answers the body parsers\' refusals with their 4xx, not a 500', async () => {
    const app = express();
    app.use(requestContext(createLogger('silent')));
    app.post('/form', express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 3 }), (_req, res) => void res.json({ ok: true }));
    app.use(errorHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const post = (body: string, type = 'application/x-www-form-urlencoded') =>
      fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/form`, { method: 'POST', headers: { 'content-type': type }, body });
    const answers = await Promise.all([post(`a=${'x'.repeat(2000)}`), post('a=1&b=2&c=3&d=4'), post('a=1', 'application/x-www-form-urlencoded; charset=koi8-r'), post('a=1')]);
    expect(await Promise.all(answers.map(async (r) => [r.status, ((await r.json()) as { error?: string }).error ?? 'ok']))).toEqual([
      [413, 'PAYLOAD_TOO_LARGE'], [413, 'PAYLOAD_TOO_LARGE'], [415, 'UNSUPPORTED_MEDIA_TYPE'], [200, 'ok'],
    ]);
    server.close();
  });

  it('answers a path parameter that is not valid percent-encoding with 400, not a 500', async () => {
    const app = express();
    app.use(requestContext(createLogger('silent')));
    app.get('/things/:id', (req, res) => void res.json({ id: req.params.id }));
    app.use(errorHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const at = (path: string) => fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}${path}`);
    const answers = await Promise.all(['/things/%ZZ', '/things/%E0%A4%A', '/things/%', '/things/a%20b'].map(at));
    expect(await Promise.all(answers.map(async (r) => [r.status, ((await r.json()) as { error?: string; id?: string }).error ?? 'ok']))).toEqual([
      [400, 'INVALID_REQUEST'], [400, 'INVALID_REQUEST'], [400, 'INVALID_REQUEST'], [200, 'ok'],
    ]);
    server.close();
  });
});

describe('createRateLimiter', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  it('allows the limit per window across limiters sharing a database', async () => {
    let now = 1_000_000_250;
    const clock = { now: () => now };
    const a = createRateLimiter(t.pool, { limit: 10, windowMs: 1000, clock });
    const b = createRateLimiter(t.pool, { limit: 10, windowMs: 1000, clock });
    const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).take('key-1')));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    const refused = decisions.find((d) => !d.allowed)!;
    expect(refused.retryAfterSeconds).toBe(1);
    expect((await a.take('key-2')).allowed).toBe(true);
    now += 1000;
    expect((await a.take('key-1')).allowed).toBe(true);
  });

  it('counts overlapping requests together yet gives each its own exact count, across two instances', async () => {
    const clock = { now: () => 2_000_000_000 };
    const other = new pg.Pool({ connectionString: t.url, max: 4 });
    const queries: string[] = [];
    const counted = (pool: pg.Pool) => ({ query: ((config: { name?: string }) => (queries.push(config.name ?? ''), pool.query(config as never))) as unknown as pg.Pool['query'] });
    try {
      const a = createRateLimiter(counted(t.pool) as pg.Pool, { limit: 150, windowMs: 60_000, clock });
      const b = createRateLimiter(counted(other) as pg.Pool, { limit: 150, windowMs: 60_000, clock });
      const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).take(i % 5 ? 'batched' : 'batched-too')));
      const of = (key: string) => decisions.filter((_, i) => (i % 5 ? 'batched' : 'batched-too') === key);
      // Every count from 1 to the total is handed out exactly once per key, as if the requests had come one by one.
      const countsOf = (key: string) => of(key).filter((d) => d.allowed).map((d) => 150 - d.remaining).sort((x, y) => x - y);
      expect(countsOf('batched')).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
      expect(countsOf('batched-too')).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(of('batched').filter((d) => !d.allowed)).toHaveLength(10);
      const { rows } = await t.pool.query("SELECT key, count FROM rate_limit_counters WHERE key LIKE 'batched%' ORDER BY key");
      expect(rows).toEqual([{ key: 'batched', count: 160 }, { key: 'batched-too', count: 40 }]);
      expect(queries.length).toBeLessThan(200); // overlapping requests shared statements
    } finally {
      await other.end();
    }
  });

  it('counts a cost of n as n requests numbered in order, admitting only those within the limit, also when overlapping', async () => {
    const clock = { now: () => 2_100_000_000 };
    const limiter = createRateLimiter(t.pool, { limit: 10, windowMs: 60_000, clock });
    for (let i = 0; i < 3; i++) await limiter.take('costly');
    const [d] = await takeCost(t.pool, [{ limiter, key: 'costly' }], 9);
    expect(d).toMatchObject({ admitted: 7, allowed: false, remaining: 0, limit: 10 });
    expect((await takeCost(t.pool, [{ limiter, key: 'costly' }], 2))[0]!.admitted).toBe(0);
    // Overlapping costs share statements yet hand out every count once: 5 x 4 under 10 admits exactly 10.
    const overlapping = await Promise.all(Array.from({ length: 5 }, () => takeCost(t.pool, [{ limiter, key: 'costly-2' }], 4)));
    expect(overlapping.map(([x]) => x!.admitted).reduce((a, b) => a + b, 0)).toBe(10);
    const { rows } = await t.pool.query("SELECT key, count FROM rate_limit_counters WHERE key LIKE 'costly%' ORDER BY key");
    expect(rows).toEqual([{ key: 'costly', count: 14 }, { key: 'costly-2', count: 20 }]);
  });

  it("keeps an hour-long window through a minute limiter's sweep, and sweeps windows older than the longest", async () => {
    const hourStart = 1_800_000_000_000 - (1_800_000_000_000 % 3600_000);
    let now = hourStart + 1000;
    const clock = { now: () => now };
    const perHour = createRateLimiter(t.pool, { limit: 5, windowMs: 3600_000, clock });
    const perMinute = createRateLimiter(t.pool, { limit: 1000, windowMs: 60_000, clock });
    await t.pool.query("INSERT INTO rate_limit_counters (key, window_start, count) VALUES ('ancient', $1, 1)", [hourStart - MAX_RATE_WINDOW_MS - 3600_000]);
    for (let i = 0; i < 4; i++) expect((await perHour.take('hour-key')).allowed).toBe(true);
    // 59 minutes on: the minute limiter's own windows of the hour have all ended, the hour window has not.
    now = hourStart + 59 * 60_000;
    await perMinute.take('minute-key');
    expect(await perMinute.sweep()).toBeGreaterThanOrEqual(1); // the window older than a day (and the 1970 ones above)
    const fifth = await perHour.take('hour-key');
    expect(fifth).toMatchObject({ allowed: true, remaining: 0 });
    expect((await perHour.take('hour-key')).allowed).toBe(false);
    const { rows } = await t.pool.query<{ key: string }>('SELECT key FROM rate_limit_counters ORDER BY key');
    expect(rows.map((r) => r.key)).toEqual(['hour-key', 'minute-key']);
    // The automatic sweep (every 500th call) spares the hour window too.
    for (let i = 0; i < 500; i++) await perMinute.take(`minute-${i % 7}`);
    await perMinute.sweep();
    expect((await perHour.take('hour-key')).allowed).toBe(false);
    now = hourStart + 3600_000;
    expect((await perHour.take('hour-key')).allowed).toBe(true);
  });

  it('refuses windows longer than a day', () => {
    expect(() => createRateLimiter(t.pool, { limit: 1, windowMs: MAX_RATE_WINDOW_MS + 1, clock: { now: () => 0 } })).toThrow(RangeError);
  });
});

describe('listen', () => {
  it('cuts off a sender that never finishes its body, while serving others', async () => {
    const app = express();
    app.post('/slow', async (req, res) => {
      for await (const _ of req) void _;
      res.json({ ok: true });
    });
    app.get('/fast', (_req, res) => {
      res.json({ ok: true });
    });
    const server = await listen(app, 0, '127.0.0.1', { requestTimeoutMs: 1000 });
    const socket = connect(server.port, '127.0.0.1');
    // The server may reset the connection right after its 408 while a trickled byte is in flight.
    socket.on('error', (error: NodeJS.ErrnoException) => expect(['ECONNRESET', 'EPIPE']).toContain(error.code));
    await new Promise((r) => socket.once('connect', r));
    socket.write('POST /slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n[');
    const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    const closed = new Promise((r) => socket.once('close', r));
    const fast = await fetch(`http://127.0.0.1:${server.port}/fast`);
    expect(fast.status).toBe(200);
    const started = Date.now();
    await closed;
    clearInterval(trickle);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    await server.close(100);
  });
});
