import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from './pool';
import { createTestDatabase, type TestDatabase } from './testing';

describe('withTransaction', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  it('survives the connection dropping between two statements: the transaction fails, the process and the pool go on', async () => {
    let dropped!: () => void;
    const droppedNow = new Promise<void>((r) => (dropped = r));
    const transaction = withTransaction(t.pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Checked out and idle between statements, as while a worker builds sources: end the connection from outside.
      await t.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await new Promise((r) => setTimeout(r, 200));
      dropped();
      await client.query('SELECT 1');
    });
    await droppedNow;
    await expect(transaction).rejects.toThrow(/terminat|not queryable|Connection/i);
    expect((await t.pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
