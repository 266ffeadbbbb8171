import { withTransaction } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES, createBoss, enqueue, ensureQueues, type Boss } from './index';

describe('queues', () => {
  let t: TestDatabase;
  let boss: Boss;
  beforeAll(async () => {
    t = await createTestDatabase();
    boss = createBoss({ connectionString: t.url, supervise: false });
    boss.on('error', () => {});
    await boss.start();
    await Promise.all([ensureQueues(boss), ensureQueues(boss)]);
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true });
    await t.close();
  });

  it('creates every queue with a dead-letter queue', async () => {
    const q = await boss.getQueue(QUEUES.processBatch);
    expect(q?.deadLetter).toBe(QUEUES.deadLetter);
    expect(q?.retryLimit).toBeGreaterThan(0);
    expect(await boss.getQueue(QUEUES.downloadAttachment)).toBeTruthy();
  });

  it('refuses a payload that breaks the queue schema', async () => {
    await expect(enqueue(boss, QUEUES.processBatch, { batchId: 'b' } as never)).rejects.toThrow(/workspaceId/);
  });

  it('commits a job only with the transaction that sent it', async () => {
    await expect(
      withTransaction(t.pool, async (client) => {
        await enqueue(boss, QUEUES.processBatch, { workspaceId: 'w', batchId: 'rolled-back' }, { client });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await withTransaction(t.pool, (client) =>
      enqueue(boss, QUEUES.processBatch, { workspaceId: 'w', batchId: 'committed' }, { client }),
    );
    const jobs = await boss.fetch(QUEUES.processBatch, { batchSize: 10 });
    expect(jobs.map((j) => (j.data as { batchId: string }).batchId)).toEqual(['committed']);
  });

  it('collapses a burst of opportunity recomputes into one pending job per workspace and product', async () => {
    expect((await boss.getQueue(QUEUES.recomputeOpportunities))?.policy).toBe('short');
    await expect(enqueue(boss, QUEUES.recomputeOpportunities, { workspaceId: 'w' } as never)).rejects.toThrow(/productId/);
    const burst = await Promise.all(
      Array.from({ length: 5 }, () => enqueue(boss, QUEUES.recomputeOpportunities, { workspaceId: 'w1', productId: 'p1' })),
    );
    expect(burst.filter(Boolean)).toHaveLength(1);
    expect(await enqueue(boss, QUEUES.recomputeOpportunities, { workspaceId: 'w1', productId: 'p2' })).toBeTruthy();
    expect(await enqueue(boss, QUEUES.recomputeOpportunities, { workspaceId: 'w2', productId: 'p1' })).toBeTruthy();
    const jobs = await boss.fetch(QUEUES.recomputeOpportunities, { batchSize: 10 });
    expect(jobs.map((j) => `${(j.data as { workspaceId: string }).workspaceId}:${(j.data as { productId: string }).productId}`).sort()).toEqual(['w1:p1', 'w1:p2', 'w2:p1']);
    const { rows } = await t.pool.query<{ k: string }>(
      "SELECT singleton_key AS k FROM pgboss.job WHERE name = $1 ORDER BY 1",
      [QUEUES.recomputeOpportunities],
    );
    expect(rows.map((r) => r.k)).toEqual(['w1:p1', 'w1:p2', 'w2:p1']);
  });

  it('collapses a burst of company re-resolutions into one pending job per workspace', async () => {
    expect((await boss.getQueue(QUEUES.resolveCompanies))?.policy).toBe('short');
    await expect(enqueue(boss, QUEUES.resolveCompanies, {} as never)).rejects.toThrow(/workspaceId/);
    const burst = await Promise.all(Array.from({ length: 5 }, () => enqueue(boss, QUEUES.resolveCompanies, { workspaceId: 'w1' })));
    expect(burst.filter(Boolean)).toHaveLength(1);
    expect(await enqueue(boss, QUEUES.resolveCompanies, { workspaceId: 'w2' })).toBeTruthy();
    const { rows } = await t.pool.query<{ k: string }>('SELECT singleton_key AS k FROM pgboss.job WHERE name = $1 ORDER BY 1', [QUEUES.resolveCompanies]);
    expect(rows.map((r) => r.k)).toEqual(['w1', 'w2']);
  });
});
