import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, createChargeBatcher, grantCredits } from './index';

describe('createChargeBatcher', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  async function workspace(credits: number, plan?: { overageAllowed: boolean }) {
    const id = newId('ws');
    let planId: string | null = null;
    if (plan) {
      planId = newId('plan');
      await t.pool.query('INSERT INTO plans (id, name, included_credits, overage_allowed) VALUES ($1, $1, 0, $2)', [planId, plan.overageAllowed]);
    }
    await t.pool.query('INSERT INTO workspaces (id, name, plan_id) VALUES ($1, $1, $2)', [id, planId]);
    if (credits > 0) await grantCredits(t.pool, id, credits, `grant:${id}`, 'test');
    return id;
  }
  const item = (reference: string) => ({ amount: 1, reference, usage: { tool: 'get_products' } });

  /** A pool that counts the transactions it is asked to begin. */
  function countingPool() {
    let begins = 0;
    const pool = new pg.Pool({ connectionString: t.url, max: 4 });
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        if (args[0] === 'BEGIN') begins++;
        return query(...args);
      };
    });
    return { pool, begins: () => begins };
  }

  it('charges overlapping calls in shared transactions, exactly once each, and refuses those past the balance in arrival order', async () => {
    const ws = await workspace(60);
    const { pool, begins } = countingPool();
    try {
      const batcher = createChargeBatcher(pool);
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => batcher.charge(ws, item(`tool:${i}`))));
      expect(results.filter(Boolean)).toHaveLength(60);
      expect(results.slice(0, 60).every(Boolean)).toBe(true); // the first 60 to arrive
      expect(await balance(t.pool, ws)).toBe(0);
      const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM credit_ledger WHERE workspace_id = $1 AND kind = 'charge'", [ws]);
      expect(rows[0].n).toBe(60);
      expect(begins()).toBeGreaterThan(0);
      expect(begins()).toBeLessThan(100);
    } finally {
      await pool.end();
    }
  });

  it('does not charge a reference twice, keeps workspaces apart, and lets a paid plan with overage run past zero', async () => {
    const a = await workspace(5);
    const b = await workspace(0, { overageAllowed: true });
    const batcher = createChargeBatcher(t.pool);
    expect(await batcher.charge(a, item('tool:same'))).toBe(true);
    const again = await Promise.all([batcher.charge(a, item('tool:same')), batcher.charge(a, item('tool:same')), batcher.charge(b, item('tool:b'))]);
    expect(again).toEqual([true, true, true]);
    expect(await balance(t.pool, a)).toBe(4);
    expect(await balance(t.pool, b)).toBe(-1);
    const { rows } = await t.pool.query("SELECT overage FROM credit_ledger WHERE workspace_id = $1 AND kind = 'charge'", [b]);
    expect(rows).toEqual([{ overage: 1 }]);
  });

  it('refuses everything for a paused workspace and fails every waiting call when the transaction fails', async () => {
    const paused = await workspace(0);
    const batcher = createChargeBatcher(t.pool);
    expect(await Promise.all([batcher.charge(paused, item('tool:p1')), batcher.charge(paused, item('tool:p2'))])).toEqual([false, false]);
    await expect(batcher.charge('ws_missing', item('tool:x'))).rejects.toThrow(/does not exist/);
    expect(await batcher.charge(paused, item('tool:p3'))).toBe(false); // the batcher still works after a failure
  });
});
