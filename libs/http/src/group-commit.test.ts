import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommit, StatementBatcher } from './group-commit';
import { createRateLimiter, takeTogetherWith } from './rate-limit';
import { createTestDatabase, statementsOf, type TestDatabase } from '@loupe/db/testing';

describe('StatementBatcher', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  // Answers each request its word doubled, and nothing for an empty word; fails the whole statement on 'boom'.
  const DOUBLE = {
    name: 'test-double-words',
    text: `SELECT l.n, l.param || l.param AS doubled, ($2::int[])[l.n] + 1 AS next,
                  CASE WHEN l.param = 'boom' THEN l.param::int END AS fails
             FROM batch_requests($1::text[]) AS l(param, n) WHERE l.param <> ''`,
  };

  it('sends the requests that arrive while a statement is out together, and answers each its own row', async () => {
    const batcher = new StatementBatcher<{ doubled: string; next: number }>(t.pool, DOUBLE);
    let answers: ({ doubled: string; next: number } | undefined)[] = [];
    const seen = await statementsOf(async () => {
      answers = await Promise.all(['a', 'b', '', 'c'].map((word, i) => batcher.run([word, i])));
    });
    expect(seen).toEqual([DOUBLE.name, DOUBLE.name]); // 'a' alone, then the three that waited
    expect(answers).toEqual([{ doubled: 'aa', next: 1, fails: null }, { doubled: 'bb', next: 2, fails: null }, undefined, { doubled: 'cc', next: 4, fails: null }]);
  });

  it('sends the requests of a statement that locks rows sorted by its lock order, and still answers each its own row', async () => {
    const PLACES = { name: 'test-places', text: 'SELECT l.n, l.n AS place, l.param FROM batch_requests($1::text[]) AS l(param, n)', lockOrder: (values: unknown[]) => String(values[0]) };
    const batcher = new StatementBatcher<{ place: number; param: string }>(t.pool, PLACES);
    const answers = await Promise.all(['z', 'c', 'a', 'b'].map((word) => batcher.run([word])));
    // 'z' alone, then the three that waited, sent as a, b, c.
    expect(answers.map((a) => [a!.param, Number(a!.place)])).toEqual([['z', 1], ['c', 3], ['a', 1], ['b', 2]]);
  });

  it('a request that fails the statement fails alone: the others sharing it are answered as if they had come alone', async () => {
    const batcher = new StatementBatcher<{ doubled: string }>(t.pool, DOUBLE);
    const first = batcher.run(['x', 0]);
    const words = ['a', 'b', 'boom', 'c', '', 'd', 'e'];
    let settled: PromiseSettledResult<{ doubled: string } | undefined>[] = [];
    const seen = await statementsOf(async () => {
      settled = await Promise.allSettled(words.map((word, i) => batcher.run([word, i])));
    });
    expect((await first)?.doubled).toBe('xx');
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value?.doubled ?? null : (r.reason as { code?: string }).code))).toEqual(['aa', 'bb', '22P02', 'cc', null, 'dd', 'ee']);
    // The seven failed together, then halves down to 'boom' alone: 4 (fails), 2 (fails), 1 (fails), 1, 3.
    expect(seen.length).toBeLessThanOrEqual(1 + 1 + 2 * Math.ceil(Math.log2(words.length)));
    expect((await batcher.run(['z', 0]))?.doubled).toBe('zz');
  });

  it('a value no statement can hold (a NUL character, an overlong text) is refused before it joins one, with a 400 that says why', async () => {
    const batcher = new StatementBatcher<{ doubled: string }>(t.pool, DOUBLE);
    let settled: PromiseSettledResult<{ doubled: string } | undefined>[] = [];
    const seen = await statementsOf(async () => {
      settled = await Promise.allSettled(['a', 'b\u0000', 'é'.repeat(1300), 'c'].map((word, i) => batcher.run([word, i])));
    });
    const outcome = settled.map((r) => (r.status === 'fulfilled' ? r.value?.doubled : `${(r.reason as { status: number }).status} ${(r.reason as Error).message}`));
    expect(outcome).toEqual([
      'aa',
      '400 A value of the request contains a NUL character (\\u0000) at position 1, which no id or name can hold',
      '400 A value of the request is 2600 bytes long; at most 2400 are accepted, which no id or name can hold',
      'cc',
    ]);
    expect(seen).toEqual([DOUBLE.name, DOUBLE.name]); // 'a' alone, then 'c': neither met a refused value
  });

  it('a statement that fails as a whole (the database unavailable, a conflict, a timeout) fails every request without sending them again', async () => {
    for (const code of ['08006', '40P01', '57014', '53300']) {
      const sent: string[][] = [];
      const group = new GroupCommit<string, string>(async (batch) => {
        sent.push(batch);
        if (batch.length > 1) throw Object.assign(new Error(`failed with ${code}`), { code });
        return batch;
      }, 100);
      const first = group.add('first');
      const settled = await Promise.allSettled(['a', 'b', 'c'].map((r) => group.add(r)));
      expect([code, await first, settled.map((r) => r.status)]).toEqual([code, 'first', ['rejected', 'rejected', 'rejected']]);
      expect(sent).toEqual([['first'], ['a', 'b', 'c']]);
    }
  });

  it('counters: a key no statement can hold is refused alone, and every other request of its batch is counted exactly once', async () => {
    const clock = { now: () => 1_700_000_000_000 };
    const limiter = createRateLimiter(t.pool, { limit: 100, windowMs: 60_000, clock });
    const ip = (n: number) => ({ limiter, key: `ip:victim-${n % 2}` });
    const hostile = ['oauth-code:\u0000:127.0.0.1', `oauth-code:${'x'.repeat(3000)}:127.0.0.1`];
    const first = takeTogetherWith(t.pool, [ip(0)]);
    const settled = await Promise.allSettled([0, 1, 2, 3, 4, 5].map((n) =>
      takeTogetherWith(t.pool, n % 3 === 1 ? [ip(n), { limiter, key: hostile[n % 2]! }] : [ip(n)])));
    await first;
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value.decisions[0]!.remaining : (r.reason as { status: number }).status)))
      .toEqual([98, 400, 97, 99, 400, 98]);
    const { rows } = await t.pool.query<{ key: string; count: number }>("SELECT key, count FROM rate_limit_counters WHERE key LIKE 'ip:victim-%' ORDER BY key");
    expect(rows).toEqual([{ key: 'ip:victim-0', count: 3 }, { key: 'ip:victim-1', count: 2 }]);
  });

  it('counts with a lookup (the credential statements): a looked-up value no statement can hold is refused alone, the others read their own rows', async () => {
    const clock = { now: () => 1_700_000_100_000 };
    const limiter = createRateLimiter(t.pool, { limit: 100, windowMs: 60_000, clock });
    const LOOKUP = { name: 'test-lookup-word', select: "SELECT l.n, upper(l.param) AS shout FROM batch_requests($4::text[]) AS l(param, n) WHERE l.param IS NOT NULL" };
    const ask = (param: string) => takeTogetherWith<{ shout: string }>(t.pool, [{ limiter, key: 'ip:lookup-victim' }], { query: LOOKUP, param });
    const first = ask('first');
    const settled = await Promise.allSettled(['a', 'b\u0000', 'c', 'x'.repeat(5000), 'd'].map(ask));
    expect((await first).row?.shout).toBe('FIRST');
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value.row?.shout : (r.reason as { status: number }).status))).toEqual(['A', 400, 'C', 400, 'D']);
    expect(settled.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ decisions: { remaining: number }[] }>).value.decisions[0]!.remaining)).toEqual([98, 97, 96]);
  });
});
