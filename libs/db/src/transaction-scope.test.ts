import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from './pool';
import { createTestDatabase, type TestDatabase } from './testing';
import { createTransactionScope } from './transaction-scope';

describe('transaction scope', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await t.pool.query('CREATE TABLE scope_test (v text PRIMARY KEY)');
  });
  afterAll(() => t.close());
  const values = async () => (await t.pool.query<{ v: string }>('SELECT v FROM scope_test ORDER BY v')).rows.map((r) => r.v);

  it('commits plain queries and nested transactions together, or rolls all of them back', async () => {
    const kept = createTransactionScope(t.pool);
    await kept.pool.query(`INSERT INTO scope_test VALUES ('a')`);
    await withTransaction(kept.pool, async (c) => c.query(`INSERT INTO scope_test VALUES ('b')`));
    expect(await values()).toEqual([]); // nothing visible before the scope commits
    await kept.commit();
    expect(await values()).toEqual(['a', 'b']);

    const dropped = createTransactionScope(t.pool);
    await dropped.pool.query(`INSERT INTO scope_test VALUES ('c')`);
    await withTransaction(dropped.pool, async (c) => c.query(`INSERT INTO scope_test VALUES ('d')`));
    await dropped.rollback();
    expect(await values()).toEqual(['a', 'b']);
  });

  it('undoes only a failed nested transaction, which becomes a savepoint', async () => {
    const scope = createTransactionScope(t.pool);
    await scope.pool.query(`INSERT INTO scope_test VALUES ('e')`);
    await expect(withTransaction(scope.pool, async (c) => {
      await c.query(`INSERT INTO scope_test VALUES ('f')`);
      await c.query(`INSERT INTO scope_test VALUES ('a')`); // duplicate key
    })).rejects.toThrow(/duplicate key/);
    await scope.pool.query(`INSERT INTO scope_test VALUES ('g')`);
    await scope.commit();
    expect(await values()).toEqual(['a', 'b', 'e', 'g']);
  });

  it('holds no connection until used, and refuses to report a failed transaction as committed', async () => {
    const idle = createTransactionScope(t.pool);
    expect(idle.opened).toBe(false);
    await idle.commit();
    const failed = createTransactionScope(t.pool);
    await expect(failed.pool.query(`INSERT INTO scope_test VALUES ('a')`)).rejects.toThrow(/duplicate key/);
    await expect(failed.commit()).rejects.toThrow(/rolled back/);
    expect(t.pool.totalCount - t.pool.idleCount).toBe(0);
    await expect(failed.pool.query('SELECT 1')).rejects.toThrow(/ended/);
  });
});
