import { newId, withTransaction } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, charge, chargeMany, chargeNow, creditStatus, grantCredits, grantIncludedCredits, CreditError } from './index';

describe('credit ledger', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  async function workspace(plan?: { overageAllowed: boolean }): Promise<string> {
    const id = newId('ws');
    let planId: string | null = null;
    if (plan) {
      planId = newId('plan');
      await t.pool.query('INSERT INTO plans (id, name, included_credits, overage_allowed) VALUES ($1, $1, 100, $2)', [
        planId,
        plan.overageAllowed,
      ]);
    }
    await t.pool.query('INSERT INTO workspaces (id, name, plan_id) VALUES ($1, $1, $2)', [id, planId]);
    return id;
  }

  async function ledger(workspaceId: string) {
    const { rows } = await t.pool.query<{ kind: string; amount: number; overage: number; reference: string }>(
      'SELECT kind, amount, overage, reference FROM credit_ledger WHERE workspace_id = $1 ORDER BY reference',
      [workspaceId],
    );
    return rows;
  }

  it('adds grants and subtracts charges', async () => {
    const ws = await workspace();
    expect(await balance(t.pool, ws)).toBe(0);
    expect(await grantCredits(t.pool, ws, 50, 'grant:welcome', 'welcome credits')).toBe(true);
    const result = await chargeNow(t.pool, { workspaceId: ws, amount: 3, reference: 'tool:1', description: 'a tool call' });
    expect(result).toMatchObject({ charged: 3, overage: 0, duplicates: [], refused: false });
    expect(result.status).toMatchObject({ balance: 47, paused: false });
    expect(await balance(t.pool, ws)).toBe(47);
    expect(await ledger(ws)).toEqual([
      { kind: 'grant', amount: 50, overage: 0, reference: 'grant:welcome' },
      { kind: 'charge', amount: -3, overage: 0, reference: 'tool:1' },
    ]);
  });

  it("grants a plan's included credits once per period", async () => {
    const ws = await workspace({ overageAllowed: false });
    expect(await grantIncludedCredits(t.pool, ws, '2026-11')).toBe(100);
    expect(await grantIncludedCredits(t.pool, ws, '2026-11')).toBe(0);
    expect(await grantIncludedCredits(t.pool, ws, '2026-12')).toBe(100);
    expect(await balance(t.pool, ws)).toBe(200);
    expect(await grantIncludedCredits(t.pool, await workspace(), '2026-11')).toBe(0);
  });

  it('grants once per reference', async () => {
    const ws = await workspace();
    expect(await grantCredits(t.pool, ws, 10, 'plan:2026-11')).toBe(true);
    expect(await grantCredits(t.pool, ws, 10, 'plan:2026-11')).toBe(false);
    expect(await balance(t.pool, ws)).toBe(10);
  });

  it('charges a reference once, however often it is retried', async () => {
    const ws = await workspace();
    await grantCredits(t.pool, ws, 5, 'g');
    const first = await chargeNow(t.pool, { workspaceId: ws, amount: 1, reference: 'record:rec_1' });
    const second = await chargeNow(t.pool, { workspaceId: ws, amount: 1, reference: 'record:rec_1' });
    expect(first.charged).toBe(1);
    expect(second).toMatchObject({ charged: 0, duplicates: ['record:rec_1'] });
    expect(await balance(t.pool, ws)).toBe(4);
  });

  it('rolls a charge back with the caller transaction', async () => {
    const ws = await workspace();
    await expect(
      withTransaction(t.pool, async (client) => {
        await charge(client, { workspaceId: ws, amount: 2, reference: 'r' });
        throw new Error('caller failed');
      }),
    ).rejects.toThrow('caller failed');
    expect(await ledger(ws)).toEqual([]);
  });

  it('records usage beyond the balance as overage and lets the balance go negative', async () => {
    const ws = await workspace();
    await grantCredits(t.pool, ws, 2, 'g');
    const result = await withTransaction(t.pool, (client) =>
      chargeMany(client, ws, [1, 2, 3].map((n) => ({ amount: 1, reference: `record:${n}` }))),
    );
    expect(result).toMatchObject({ charged: 3, overage: 1 });
    expect(result.status).toMatchObject({ balance: -1, paused: true });
    expect((await ledger(ws)).map((r) => r.overage)).toEqual([0, 0, 0, 1]);
  });

  it('pauses a workspace without credits unless its plan allows overage', async () => {
    const free = await workspace();
    const strict = await workspace({ overageAllowed: false });
    const paid = await workspace({ overageAllowed: true });
    expect((await creditStatus(t.pool, free)).paused).toBe(true);
    expect((await creditStatus(t.pool, strict)).paused).toBe(true);
    expect((await creditStatus(t.pool, paid)).paused).toBe(false);
    await grantCredits(t.pool, free, 1, 'g');
    expect((await creditStatus(t.pool, free)).paused).toBe(false);
    await chargeNow(t.pool, { workspaceId: free, amount: 1, reference: 'c' });
    expect(await creditStatus(t.pool, free)).toMatchObject({ balance: 0, paused: true });
    const paidCharge = await chargeNow(t.pool, { workspaceId: paid, amount: 4, reference: 'c' });
    expect(paidCharge).toMatchObject({ charged: 4, overage: 4, status: { balance: -4, paused: false } });
  });

  it('refuses instead of charging a paused workspace when asked to', async () => {
    const ws = await workspace();
    const result = await chargeNow(t.pool, { workspaceId: ws, amount: 1, reference: 'tool:x' }, { whenPaused: 'refuse' });
    expect(result).toMatchObject({ charged: 0, refused: true, status: { paused: true } });
    expect(await ledger(ws)).toEqual([]);
    const recorded = await chargeNow(t.pool, { workspaceId: ws, amount: 1, reference: 'record:x' });
    expect(recorded).toMatchObject({ charged: 1, overage: 1, refused: false });
  });

  it('rejects bad amounts, unknown workspaces and a reference reused for something else', async () => {
    const ws = await workspace();
    await expect(chargeNow(t.pool, { workspaceId: ws, amount: 0, reference: 'r' })).rejects.toThrow(/positive whole number/);
    await expect(chargeNow(t.pool, { workspaceId: ws, amount: 1.5, reference: 'r' })).rejects.toThrow(CreditError);
    await expect(chargeNow(t.pool, { workspaceId: ws, amount: 1, reference: '' })).rejects.toThrow(/reference/);
    await expect(chargeNow(t.pool, { workspaceId: 'ws_missing', amount: 1, reference: 'r' })).rejects.toThrow(
      /workspace ws_missing does not exist/,
    );
    await grantCredits(t.pool, ws, 3, 'shared-ref');
    await expect(chargeNow(t.pool, { workspaceId: ws, amount: 3, reference: 'shared-ref' })).rejects.toThrow(
      /already in the ledger as a grant/,
    );
  });

  it('charges only the new references of a call that repeats some, with overage counted on those alone', async () => {
    const ws = await workspace();
    await grantCredits(t.pool, ws, 2, 'g');
    await chargeNow(t.pool, { workspaceId: ws, amount: 1, reference: 'record:1' });
    const result = await withTransaction(t.pool, (client) =>
      chargeMany(client, ws, [1, 2, 3].map((n) => ({ amount: 1, reference: `record:${n}` }))),
    );
    // One credit was left: record:2 takes it, record:3 is over; record:1 was charged before.
    expect(result).toMatchObject({ charged: 2, overage: 1, duplicates: ['record:1'], status: { balance: -1 } });
    expect((await ledger(ws)).map((r) => [r.reference, r.overage])).toEqual([['g', 0], ['record:1', 0], ['record:2', 0], ['record:3', 1]]);
    expect(await balance(t.pool, ws)).toBe(-1);
  });

  it('writes nothing of a call it refuses, even when the caller carries on and commits', async () => {
    const ws = await workspace();
    await grantCredits(t.pool, ws, 3, 'shared-ref');
    await withTransaction(t.pool, async (client) => {
      await expect(
        chargeMany(client, ws, [{ amount: 1, reference: 'record:a' }, { amount: 1, reference: 'shared-ref' }, { amount: 1, reference: 'record:b' }]),
      ).rejects.toThrow(/shared-ref is already in the ledger as a grant/);
    });
    expect(await ledger(ws)).toEqual([{ kind: 'grant', amount: 3, overage: 0, reference: 'shared-ref' }]);
    expect(await balance(t.pool, ws)).toBe(3);
  });

  it('counts 20 concurrent charges with distinct references exactly, with exact overage', async () => {
    const ws = await workspace();
    await grantCredits(t.pool, ws, 10, 'g');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => chargeNow(t.pool, { workspaceId: ws, amount: 1, reference: `record:${i}` })),
    );
    expect(results.reduce((s, r) => s + r.charged, 0)).toBe(20);
    // Only a serialised balance read gives exactly 10 covered and 10 over.
    expect(results.reduce((s, r) => s + r.overage, 0)).toBe(10);
    expect(await balance(t.pool, ws)).toBe(-10);
    expect(await ledger(ws)).toHaveLength(21);
  });

  it('counts 20 concurrent charges with the same reference once', async () => {
    const ws = await workspace();
    await grantCredits(t.pool, ws, 10, 'g');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => chargeNow(t.pool, { workspaceId: ws, amount: 1, reference: 'record:same' })),
    );
    expect(results.filter((r) => r.charged === 1)).toHaveLength(1);
    expect(results.filter((r) => r.duplicates.includes('record:same'))).toHaveLength(19);
    expect(await balance(t.pool, ws)).toBe(9);
  });

  it('keeps the stored balance equal to the sum of the ledger through grants, charges, repeats and concurrency', async () => {
    const ws = await workspace();
    const sumOfLedger = async () =>
      Number((await t.pool.query('SELECT COALESCE(SUM(amount), 0) AS s FROM credit_ledger WHERE workspace_id = $1', [ws])).rows[0].s);
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => grantCredits(t.pool, ws, 5, `grant:${i % 4}`)),
      ...Array.from({ length: 30 }, (_, i) => chargeNow(t.pool, { workspaceId: ws, amount: 2, reference: `record:${i % 12}` })),
      withTransaction(t.pool, (c) => chargeMany(c, ws, Array.from({ length: 8 }, (_, i) => ({ amount: 1, reference: `bulk:${i}` })))),
    ]);
    expect(await sumOfLedger()).toBe(4 * 5 - 12 * 2 - 8);
    expect(await balance(t.pool, ws)).toBe(await sumOfLedger());
  });
});
