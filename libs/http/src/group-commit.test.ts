import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatementBatcher } from './group-commit';
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

  it('fails every request of a failed statement, and the next statement goes on', async () => {
    const batcher = new StatementBatcher<{ doubled: string }>(t.pool, DOUBLE);
    const first = batcher.run(['x', 0]);
    const failed = Promise.allSettled([batcher.run(['y', 0]), batcher.run(['boom', 0])]);
    expect((await first)?.doubled).toBe('xx');
    expect((await failed).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((await batcher.run(['z', 0]))?.doubled).toBe('zz');
  });
});
