import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { balance } from '@loupe/credits';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import type { Boss } from '@loupe/jobs';
import { deleteEvidence, setRetention } from '@loupe/lifecycle';
import { createLocalStorage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import type { SafeFetch } from '@loupe/safe-fetch';
import { createWorker } from './app';
import { downloadAttachment } from './download-attachment';
import { FAST_OPTIONS, FIRST_ATTEMPT, batchRow, createWorkspace, land, silentLog, startBoss, testConfig, testContext, transcriptRecords, waitFor, waitForBatch } from './test/helpers';

describe('deleting evidence beside the worker', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dataDir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-delete-'));
    boss = await startBoss(t.url);
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true });
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const count = async (sql: string, params: unknown[]) => (await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) x`, params)).rows[0]!.n;

  it('deleting a source while the worker processes its batch: no error, nothing comes back, the batch completes and its counts stay true', async () => {
    const ws = await createWorkspace(t.pool, 1000);
    // Each source takes a moment to store, so the deletes below meet records a chunk holds.
    await t.pool.query(`
      CREATE OR REPLACE FUNCTION slow_sources() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.01); RETURN NEW; END $$;
      CREATE TRIGGER slow_sources BEFORE INSERT ON sources FOR EACH ROW EXECUTE FUNCTION slow_sources();`);
    const batchId = await land(t.pool, boss, ws, 'call', transcriptRecords(200));
    const { rows: all } = await t.pool.query<{ id: string }>('SELECT id FROM records WHERE batch_id = $1 ORDER BY position', [batchId]);
    const config = testConfig(dataDir);
    const deps = { pool: t.pool, storage: createLocalStorage(dataDir), clock: { now: () => Date.now() } };
    const worker = createWorker({ pool: t.pool, db: t.db, boss, clock: deps.clock, log: silentLog, config, options: { ...FAST_OPTIONS, chunkSize: 20 } });
    const deletedRecords = new Set<string>();
    const deletedSources = new Set<string>();
    let viaSource = 0;
    await worker.start();
    try {
      await waitFor('processing to start', async () => (await batchRow(t.pool, batchId)).status === 'PROCESSING');
      // Every third record, from both ends at once: some processed (their source exists, deleted by its
      // id), some held by a chunk in progress, some not reached yet.
      const picked = all.filter((_, i) => i % 3 === 0).map((r) => r.id);
      const order = picked.map((_, i) => (i % 2 === 0 ? picked[i / 2]! : picked[picked.length - 1 - (i - 1) / 2]!));
      for (const id of order) {
        const { rows: src } = await t.pool.query<{ id: string }>('SELECT id FROM sources WHERE record_id = $1', [id]);
        const out = src[0]
          ? await deleteEvidence(deps, ws, { sourceIds: [src[0].id] })
          : await deleteEvidence(deps, ws, { recordIds: [id] });
        if (src[0]) viaSource++;
        expect(out.records.map((r) => r.id)).toEqual([id]);
        deletedRecords.add(id);
        for (const s of out.sources) deletedSources.add(s.id);
        await new Promise((r) => setTimeout(r, 15));
      }
      const done = await waitForBatch(t.pool, batchId, ['COMPLETE', 'FAILED']);
      expect(done.status).toBe('COMPLETE');
    } finally {
      await worker.stop();
      await t.pool.query('DROP TRIGGER slow_sources ON sources');
    }
    // The deletes met the worker at every stage (sources deleted by id, records deleted before they became one).
    expect(viaSource).toBeGreaterThan(0);
    expect(deletedRecords.size - deletedSources.size).toBeGreaterThan(0);
    // Nothing deleted came back: no record, no source built from one.
    expect(await count('SELECT 1 FROM records WHERE id = ANY($1)', [[...deletedRecords]])).toBe(0);
    expect(await count('SELECT 1 FROM sources WHERE id = ANY($1) OR record_id = ANY($2)', [[...deletedSources], [...deletedRecords]])).toBe(0);
    const kept = all.length - deletedRecords.size;
    expect(await count('SELECT 1 FROM sources WHERE workspace_id = $1', [ws])).toBe(kept);
    expect(await count('SELECT 1 FROM records WHERE batch_id = $1 AND processed_at IS NULL', [batchId])).toBe(0);
    // Counts: received and processed stay as history, the deletions are counted; what was charged stays charged.
    const { rows } = await t.pool.query('SELECT accepted_count, processed_count, credits_charged, deleted_count FROM batches WHERE id = $1', [batchId]);
    expect(rows[0]).toMatchObject({ accepted_count: 200, deleted_count: deletedRecords.size, processed_count: kept + deletedSources.size, credits_charged: kept + deletedSources.size });
    expect(await balance(t.pool, ws)).toBe(1000 - (kept + deletedSources.size));
    expect(await count('SELECT 1 FROM source_deletions WHERE workspace_id = $1', [ws])).toBe(deletedSources.size);
  });

  it('retention across a restart: a worker stopped half-way leaves the rest to the next one, which deletes exactly the old sources', async () => {
    const ws = await createWorkspace(t.pool, 1000);
    const batchId = await land(t.pool, boss, ws, 'call', transcriptRecords(40));
    const config = testConfig(dataDir);
    const options = { ...FAST_OPTIONS, retentionSlice: 4, retentionIntervalSeconds: 3600 };
    const first = createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config, options });
    await first.start();
    try {
      await waitForBatch(t.pool, batchId, ['COMPLETE']);
    } finally {
      await first.stop();
    }
    // The records are from 2026-01-02; three sources are made recent and must stay.
    const { rows: young } = await t.pool.query<{ id: string }>(
      `UPDATE sources SET occurred_at = now() WHERE id IN (SELECT id FROM sources WHERE workspace_id = $1 ORDER BY id LIMIT 3) RETURNING id`, [ws]);
    await setRetention(t.pool, ws, 30);

    const second = createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config, options });
    await second.start();
    try {
      await waitFor('a first slice', async () => (await count('SELECT 1 FROM sources WHERE workspace_id = $1', [ws])) < 40);
    } finally {
      await second.stop();
    }
    const left = await count('SELECT 1 FROM sources WHERE workspace_id = $1', [ws]);
    expect(left).toBeGreaterThan(3); // stopped half-way

    // A new process: its own pg-boss and worker.
    const boss2 = await startBoss(t.url);
    const third = createWorker({ pool: t.pool, db: t.db, boss: boss2, clock: { now: () => Date.now() }, log: silentLog, config, options });
    await third.start();
    try {
      await waitFor('retention to finish', async () => (await count('SELECT 1 FROM sources WHERE workspace_id = $1', [ws])) === 3, 30_000);
    } finally {
      await third.stop();
      await boss2.stop({ graceful: false, close: true });
    }
    const { rows: kept } = await t.pool.query<{ id: string }>('SELECT id FROM sources WHERE workspace_id = $1 ORDER BY id', [ws]);
    // RETURNING gives no order: compare by id.
    expect(kept).toEqual([...young].sort((a, b) => (a.id < b.id ? -1 : 1)));
    expect(await count('SELECT 1 FROM records WHERE batch_id = $1', [batchId])).toBe(3);
    const batch = await t.pool.query('SELECT deleted_count, processed_count FROM batches WHERE id = $1', [batchId]);
    expect(batch.rows[0]).toEqual({ deleted_count: 37, processed_count: 40 });
  });

  it('a record deleted while its attachment downloads: the file that arrives after is deleted, nothing is counted', async () => {
    const ws = await createWorkspace(t.pool, 10);
    const batchId = await land(t.pool, boss, ws, 'call', [{ data: { title: 'Call', transcript: 'Ann: hi' }, attachments: [{ type: 'audio', vendor_url: 'https://files.example/call.mp3' }] }]);
    const { rows } = await t.pool.query<{ id: string; record_id: string }>('SELECT id, record_id FROM attachments WHERE batch_id = $1', [batchId]);
    const ctx = testContext(t.pool, boss, testConfig(dataDir));
    // The file's bytes come in while the record is deleted.
    const fetch = {
      stream: async () => {
        await deleteEvidence({ pool: t.pool, storage: ctx.storage, clock: ctx.clock }, ws, { recordIds: [rows[0]!.record_id] });
        return { url: 'https://files.example/call.mp3', status: 200, contentType: 'audio/mpeg', contentLength: 5, body: Readable.from([Buffer.from('audio')]) };
      },
    } as unknown as SafeFetch;
    const outcome = await downloadAttachment({ ...ctx, fetch }, { workspaceId: ws, batchId, attachmentId: rows[0]!.id }, FIRST_ATTEMPT);
    expect(outcome).toBe('skipped');
    expect(await ctx.storage.exists(`${ws}/${batchId}/${rows[0]!.id}`)).toBe(false);
    const batch = await t.pool.query('SELECT deleted_count, attachment_download_total, attachment_download_complete FROM batches WHERE id = $1', [batchId]);
    expect(batch.rows[0]).toEqual({ deleted_count: 1, attachment_download_total: 0, attachment_download_complete: 0 });
  });
});
