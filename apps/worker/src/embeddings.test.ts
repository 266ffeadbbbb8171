import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import type { Boss } from '@loupe/jobs';
import { remoteVersionOf } from '@loupe/semantics';
import { startFakeEmbeddings, type FakeEmbeddings } from '@loupe/semantics/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from './app';
import { FAST_OPTIONS, createWorkspace, effects, land, silentLog, startBoss, testConfig, transcriptRecords, waitFor, waitForBatch } from './test/helpers';

// An embedding provider (EMBEDDINGS_URL) that fails never holds up ingestion: batches are processed and
// their sources stored; their vectors wait, and are made by a retry of the job once the provider answers.
describe('the worker with an embedding provider', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dataDir: string;
  let fake: FakeEmbeddings;
  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-embeddings-'));
    boss = await startBoss(t.url);
    fake = await startFakeEmbeddings({ dims: 16 });
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true });
    await fake.close();
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('processes batches while the provider fails, and embeds their sources once it answers', async () => {
    const config = testConfig(dataDir, { JOB_RETRY_BASE_SECONDS: '1' });
    config.embeddings = { url: fake.url, model: 'fake-embed', apiKey: undefined, batchSize: 8, requestsPerMinute: undefined, timeoutMs: 1_000, retries: 0, backoffMs: 10 };
    fake.setMode('failing');
    const ws = await createWorkspace(t.pool, 100);
    const worker = createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config, options: FAST_OPTIONS });
    await worker.start();
    const pending = async () => (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM source_semantics WHERE workspace_id = $1 AND pending', [ws])).rows[0]!.n;
    try {
      const batchId = await land(t.pool, boss, ws, 'call', transcriptRecords(12));
      expect(await waitForBatch(t.pool, batchId, ['COMPLETE', 'FAILED'])).toMatchObject({ status: 'COMPLETE', processed_count: 12 });
      expect(await effects(t.pool, ws, batchId)).toMatchObject({ sources: 12 });
      // The embedding job asked the provider, failed, and left every source waiting for its vector.
      await waitFor('the provider to be asked', async () => fake.requests.length > 0);
      expect(await pending()).toBe(12);

      fake.setMode('ok');
      await waitFor('the sources to be embedded', async () => (await pending()) === 0, 30_000);
      const { rows } = await t.pool.query<{ version: string; bytes: number }>(
        'SELECT DISTINCT version, octet_length(vector) AS bytes FROM source_semantics WHERE workspace_id = $1', [ws],
      );
      expect(rows).toEqual([{ version: remoteVersionOf('fake-embed'), bytes: 4 + 16 }]);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
