import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { deleteEvidence, setRetention } from '@loupe/lifecycle';
import { vocabularyState } from '@loupe/sources';
import { createLocalStorage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from './app';
import { FAST_OPTIONS, createWorkspace, land, silentLog, startBoss, testConfig, transcriptRecords, waitFor, waitForBatch } from './test/helpers';

describe('the worker learns each workspace\'s vocabulary for search', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dataDir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-vocabulary-'));
    boss = await startBoss(t.url);
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true });
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('after embedding the sources of a workspace that has enough, and again from what is left after a deletion emptied it', async () => {
    const ws = await createWorkspace(t.pool, 1000);
    const few = await createWorkspace(t.pool, 1000);
    const clock = { now: () => Date.now() };
    // The retention sweep, which queues emptied vocabularies to be learned again, every second.
    const worker = createWorker({ pool: t.pool, db: t.db, boss, clock, log: silentLog, config: testConfig(dataDir), options: { ...FAST_OPTIONS, retentionIntervalSeconds: 1 } });
    await worker.start();
    try {
      await waitForBatch(t.pool, await land(t.pool, boss, ws, 'call', transcriptRecords(60)), ['COMPLETE']);
      await waitForBatch(t.pool, await land(t.pool, boss, few, 'call', transcriptRecords(49)), ['COMPLETE']);
      const learned = await waitFor('the vocabulary', async () => {
        const state = await vocabularyState(t.pool, ws);
        return state?.learned && state;
      });
      expect(learned).toMatchObject({ sources: 60, sampled: 60, grown: 0, generation: 0 });
      // A workspace with fewer sources than that has none.
      await waitFor('the small workspace embedded', async () => (await t.pool.query("SELECT 1 FROM source_semantics WHERE workspace_id = $1 AND pending", [few])).rowCount === 0);
      expect(await vocabularyState(t.pool, few)).toBeUndefined();

      const { rows } = await t.pool.query<{ id: string }>('SELECT id FROM sources WHERE workspace_id = $1 ORDER BY id LIMIT 1', [ws]);
      await deleteEvidence({ pool: t.pool, storage: createLocalStorage(dataDir), clock }, ws, { sourceIds: [rows[0]!.id] });
      expect(await vocabularyState(t.pool, ws)).toMatchObject({ learned: false, generation: 1 });
      const again = await waitFor('the vocabulary learned again', async () => {
        const state = await vocabularyState(t.pool, ws);
        return state?.learned && state;
      });
      expect(again).toMatchObject({ sources: 59, sampled: 59, generation: 1 });
    } finally {
      await worker.stop();
    }
  });

  it('at its start, for a workspace whose sources were embedded before vocabularies existed', async () => {
    const ws = await createWorkspace(t.pool, 1000);
    const options = { ...FAST_OPTIONS, retentionIntervalSeconds: 3600 };
    const first = createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config: testConfig(dataDir), options });
    await first.start();
    try {
      await waitForBatch(t.pool, await land(t.pool, boss, ws, 'call', transcriptRecords(55)), ['COMPLETE']);
      await waitFor('the vocabulary', async () => (await vocabularyState(t.pool, ws))?.learned);
    } finally {
      await first.stop();
    }
    // As the release before left it: every source embedded, no vocabulary.
    await t.pool.query('DELETE FROM search_vocabularies WHERE workspace_id = $1', [ws]);
    const second = createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config: testConfig(dataDir), options });
    await second.start();
    try {
      const learned = await waitFor('the vocabulary learned at the start', async () => {
        const state = await vocabularyState(t.pool, ws);
        return state?.learned && state;
      });
      expect(learned).toMatchObject({ sources: 55, sampled: 55 });
    } finally {
      await second.stop();
    }
  });

  it('learned again from what is left once retention is through the workspace', async () => {
    const ws = await createWorkspace(t.pool, 1000);
    const worker = createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config: testConfig(dataDir), options: { ...FAST_OPTIONS, retentionSlice: 4, retentionIntervalSeconds: 3600 } });
    await worker.start();
    try {
      await waitForBatch(t.pool, await land(t.pool, boss, ws, 'call', transcriptRecords(70)), ['COMPLETE']);
      await waitFor('the vocabulary', async () => (await vocabularyState(t.pool, ws))?.learned);
      // The records are from 2026-01-02; 60 sources are made recent and stay.
      await t.pool.query('UPDATE sources SET occurred_at = now() WHERE id IN (SELECT id FROM sources WHERE workspace_id = $1 ORDER BY id LIMIT 60)', [ws]);
      await setRetention(t.pool, ws, 30);
      await enqueue(boss, QUEUES.retention, { workspaceId: ws });
      const again = await waitFor('the vocabulary learned again', async () => {
        const state = await vocabularyState(t.pool, ws);
        return state?.learned && state.generation > 0 && state;
      });
      expect(again).toMatchObject({ sources: 60, sampled: 60 });
    } finally {
      await worker.stop();
    }
  });
});
