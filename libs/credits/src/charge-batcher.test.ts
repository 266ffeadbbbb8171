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

  /** A pool that counts the charge transactions it runs: the one-statement ones and those it begins. */
  function countingPool() {
    let begins = 0;
    const pool = new pg.Pool({ connectionString: t.url, max: 4 });
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const named = (args[0] as { name?: string } | undefined)?.name;
        if (args[0] === 'BEGIN' || named === 'credits-charge-while-covered') begins++;
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

  it('keeps the balance exact under batchers of two services charging one workspace at once, overage included', async () => {
    const ws = await workspace(50);
    const pools = [new pg.Pool({ connectionString: t.url, max: 4 }), new pg.Pool({ connectionString: t.url, max: 4 })];
    try {
      const batchers = pools.map((pool) => createChargeBatcher(pool));
      const results = await Promise.all(Array.from({ length: 120 }, (_, i) => batchers[i % 2]!.charge(ws, item(`tool:two:${i}`))));
      expect(results.filter(Boolean)).toHaveLength(50);
      expect(await balance(t.pool, ws)).toBe(0);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
    const paid = await workspace(2, { overageAllowed: true });
    const batcher = createChargeBatcher(t.pool);
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ amount: 2, reference: `tool:big:${i}`, usage: { tool: 'find_sources', apiKeyId: 'key_1' } }));
    expect(await Promise.all(many(3).map((m) => batcher.charge(paid, m)))).toEqual([true, true, true]);
    const { rows } = await t.pool.query("SELECT reference, amount, overage, tool, api_key_id FROM credit_ledger WHERE workspace_id = $1 AND kind = 'charge' ORDER BY reference", [paid]);
    expect(rows).toEqual([
      { reference: 'tool:big:0', amount: -2, overage: 0, tool: 'find_sources', api_key_id: 'key_1' },
      { reference: 'tool:big:1', amount: -2, overage: 2, tool: 'find_sources', api_key_id: 'key_1' },
      { reference: 'tool:big:2', amount: -2, overage: 2, tool: 'find_sources', api_key_id: 'key_1' },
    ]);
    expect(await balance(t.pool, paid)).toBe(-4);
  });

  it('charges the new references of a batch that also carries a retried one, and nothing twice', async () => {
    const ws = await workspace(3);
    const batcher = createChargeBatcher(t.pool);
    expect(await batcher.charge(ws, item('tool:r0'))).toBe(true);
    const results = await Promise.all([batcher.charge(ws, item('tool:r1')), batcher.charge(ws, item('tool:r0')), batcher.charge(ws, item('tool:r2')), batcher.charge(ws, item('tool:r3'))]);
    expect(results).toEqual([true, true, true, false]);
    expect(await balance(t.pool, ws)).toBe(0);
  });

  it('refuses everything for a paused workspace and fails every waiting call when the transaction fails', async () => {
    const paused = await workspace(0);
    const batcher = createChargeBatcher(t.pool);
    expect(await Promise.all([batcher.charge(paused, item('tool:p1')), batcher.charge(paused, item('tool:p2'))])).toEqual([false, false]);
    await expect(batcher.charge('ws_missing', item('tool:x'))).rejects.toThrow(/does not exist/);
    expect(await batcher.charge(paused, item('tool:p3'))).toBe(false); // the batcher still works after a failure
  });
});
