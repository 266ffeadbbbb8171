import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { addSignals, CLUSTERING_METHOD } from '@loupe/evidence';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from './app';
import { FAST_OPTIONS, createProductWithSource, createWorkspace, silentLog, startBoss, testConfig, waitFor } from './test/helpers';

const SIGNALS: Array<[title: string, content: string]> = [
  ['Quarterly export to Excel is slow', 'Exporting the quarterly report to Excel takes twenty minutes.'],
  ['CSV export times out on big reports', 'The CSV export times out once the report has thousands of rows.'],
  ['SAML single sign-on required', 'Security policy requires SAML single sign-on for every tool.'],
  ['Needs Okta login', 'Procurement will only sign if users can log in through Okta.'],
];

describe('opportunities backfill at worker start', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dataDir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-backfill-'));
    boss = await startBoss(t.url);
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true });
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const worker = () => createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config: testConfig(dataDir), options: FAST_OPTIONS });
  const clustering = async (prod: string) =>
    (await t.pool.query<{ method: string; at: Date }>('SELECT clustering_method AS method, reclustered_at AS at FROM product_clusterings WHERE product_id = $1', [prod])).rows[0];
  const opportunityIds = async (prod: string) =>
    (await t.pool.query<{ id: string }>('SELECT id FROM opportunities WHERE product_id = $1 ORDER BY id', [prod])).rows.map((r) => r.id);

  it('regroups a product clustered by an earlier grouping method once, after an upgrade, with no new evidence', async () => {
    const ws = await createWorkspace(t.pool);
    const { prod, src } = await createProductWithSource(t.pool, ws);
    await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: SIGNALS.map(([title, content]) => ({ type: 'pain_point', title, content })) }, { now: () => Date.now() });
    const first = worker();
    await first.start();
    try {
      await enqueue(boss, QUEUES.recomputeOpportunities, { workspaceId: ws, productId: prod });
      await waitFor('the product clustered', async () => (await clustering(prod))?.method === CLUSTERING_METHOD);
    } finally {
      await first.stop();
    }
    const ids = await opportunityIds(prod);
    // As the migration leaves a product clustered before it.
    await t.pool.query("UPDATE product_clusterings SET clustering_method = '', reclustered_at = '2026-01-01T00:00:00Z' WHERE product_id = $1", [prod]);
    const upgraded = worker();
    await upgraded.start();
    try {
      await waitFor('the product regrouped', async () => (await clustering(prod))?.method === CLUSTERING_METHOD);
      expect((await clustering(prod))!.at.getTime()).toBeGreaterThan(Date.parse('2026-01-02T00:00:00Z'));
      expect(await opportunityIds(prod)).toEqual(ids);
    } finally {
      await upgraded.stop();
    }
  });
});
