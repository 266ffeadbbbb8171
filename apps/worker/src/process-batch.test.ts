import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { balance } from '@loupe/credits';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import type { Boss } from '@loupe/jobs';
import { readSource } from '@loupe/sources';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from './app';
import { handleDeadJob } from './dead-letter';
import { processBatch } from './process-batch';
import { RECORD_FAILURE_MESSAGES } from './record-chunk';
import {
  FAST_OPTIONS, FIRST_ATTEMPT, batchRow, createWorkspace, effects, land, silentLog, startBoss, testConfig, testContext,
  transcriptRecords, waitForBatch,
} from './test/helpers';

describe('processing batches', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dataDir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-'));
    boss = await startBoss(t.url);
    // Records titled "poison…" are refused by the database, as bad data would be.
    await t.pool.query(`
      CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.title LIKE 'poison%' THEN RAISE EXCEPTION 'title % of workspace % violates constraint sources_title_check', NEW.title, NEW.workspace_id USING ERRCODE = '22023'; END IF;
        IF NEW.title LIKE 'outage%' THEN RAISE EXCEPTION 'simulated database outage' USING ERRCODE = '57P01'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_poison BEFORE INSERT ON sources FOR EACH ROW EXECUTE FUNCTION refuse_poison();`);
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true });
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('turns every record into one source, charges one credit each and completes the batch', async () => {
    const ws = await createWorkspace(t.pool, 100);
    const batchId = await land(t.pool, boss, ws, 'call', transcriptRecords(230));
    const worker = createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config: testConfig(dataDir), options: FAST_OPTIONS });
    await worker.start();
    try {
      const done = await waitForBatch(t.pool, batchId, ['COMPLETE', 'FAILED']);
      expect(done).toMatchObject({ status: 'COMPLETE', processed_count: 230, credits_charged: 230, total_error_count: 0, errors: [] });
    } finally {
      await worker.stop();
    }
    expect(await effects(t.pool, ws, batchId)).toEqual({ records: 230, processed: 230, sources: 230, charges: 230, charged: 230, duplicates: 0 });
    expect(await balance(t.pool, ws)).toBe(100 - 230);
    const { rows: overage } = await t.pool.query<{ n: number }>('SELECT sum(overage)::int AS n FROM credit_ledger WHERE workspace_id = $1', [ws]);
    expect(overage[0]!.n).toBe(130);
    const { rows } = await t.pool.query<{ id: string }>(
      `SELECT s.id FROM sources s JOIN records r ON r.id = s.record_id WHERE r.batch_id = $1 AND r.position = 7`,
      [batchId],
    );
    const page = await readSource(t.pool, ws, rows[0]!.id);
    expect(page!.source.title).toBe('Call 7');
    expect(page!.segments.map((s) => [s.speaker, s.text])).toEqual([
      ['Ann', 'Hello number 7'],
      ['Bo', 'Exports are slow, said customer 7'],
    ]);
  });

  it('processes and charges each record once when the job runs twice, or three times at once', async () => {
    const ws = await createWorkspace(t.pool, 1000);
    const batchId = await land(t.pool, boss, ws, 'conversation', transcriptRecords(400));
    const ctx = testContext(t.pool, boss, testConfig(dataDir), { chunkSize: 25 });
    const job = { workspaceId: ws, batchId };
    const outcomes = await Promise.all([processBatch(ctx, job, FIRST_ATTEMPT), processBatch(ctx, job, FIRST_ATTEMPT), processBatch(ctx, job, FIRST_ATTEMPT)]);
    expect(outcomes.filter((o) => o === 'COMPLETE')).toHaveLength(1);
    expect(await processBatch(ctx, job, FIRST_ATTEMPT)).toBe('already-final');
    expect(await batchRow(t.pool, batchId)).toMatchObject({ status: 'COMPLETE', processed_count: 400, credits_charged: 400 });
    expect(await effects(t.pool, ws, batchId)).toEqual({ records: 400, processed: 400, sources: 400, charges: 400, charged: 400, duplicates: 0 });
    expect(await balance(t.pool, ws)).toBe(600);
  });

  it('awaits its pacing before each chunk with how long the chunk before took (the worker inside npm start rests while calls are answered)', async () => {
    const ws = await createWorkspace(t.pool, 100);
    const batchId = await land(t.pool, boss, ws, 'call', transcriptRecords(30));
    const worked: number[] = [];
    const ctx = { ...testContext(t.pool, boss, testConfig(dataDir), { chunkSize: 10 }), yieldToRequests: async (ms: number) => void worked.push(ms) };
    expect(await processBatch(ctx, { workspaceId: ws, batchId }, FIRST_ATTEMPT)).toBe('COMPLETE');
    // Three chunks of ten, then the look that finds none left: the first slice follows no chunk.
    expect(worked).toHaveLength(4);
    for (const ms of worked.slice(1)) expect(ms).toBeGreaterThan(worked[0]!);
    expect(await effects(t.pool, ws, batchId)).toMatchObject({ records: 30, processed: 30, sources: 30 });
  });

  it('shares a batch between two worker processes without double work', async () => {
    const ws = await createWorkspace(t.pool);
    const other = await startBoss(t.url);
    const batchId = await land(t.pool, boss, ws, 'message', transcriptRecords(300));
    // A duplicate job for the same batch, as a retry or a second producer would make.
    await boss.send('batch.process', { workspaceId: ws, batchId });
    const make = (b: Boss) =>
      createWorker({ pool: t.pool, db: t.db, boss: b, clock: { now: () => Date.now() }, log: silentLog, config: testConfig(dataDir), options: { ...FAST_OPTIONS, chunkSize: 20 } });
    const workers = [make(boss), make(other)];
    await Promise.all(workers.map((w) => w.start()));
    try {
      await waitForBatch(t.pool, batchId, ['COMPLETE', 'FAILED']);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await other.stop({ graceful: false, close: true });
    }
    expect(await batchRow(t.pool, batchId)).toMatchObject({ status: 'COMPLETE', processed_count: 300, credits_charged: 300 });
    expect(await effects(t.pool, ws, batchId)).toEqual({ records: 300, processed: 300, sources: 300, charges: 300, charged: 300, duplicates: 0 });
  });

  it('records a record that cannot be stored as an error and completes the rest', async () => {
    const ws = await createWorkspace(t.pool);
    const records = transcriptRecords(6);
    records[4] = { data: { title: 'poison pill', transcript: 'Ann: hi\nBo: ho' } };
    const batchId = await land(t.pool, boss, ws, 'call', records);
    const ctx = testContext(t.pool, boss, testConfig(dataDir));
    expect(await processBatch(ctx, { workspaceId: ws, batchId }, FIRST_ATTEMPT)).toBe('COMPLETE');
    const row = await batchRow(t.pool, batchId);
    expect(row).toMatchObject({ status: 'COMPLETE', processed_count: 5, credits_charged: 5, total_error_count: 1 });
    expect(row.errors).toEqual([{ index: 4, code: 'SOURCE_STORE_FAILED', message: RECORD_FAILURE_MESSAGES.SOURCE_STORE_FAILED }]);
    expect(JSON.stringify(row.errors)).not.toMatch(/poison|constraint|ws_|workspace/);
    expect(await effects(t.pool, ws, batchId)).toMatchObject({ records: 6, processed: 6, sources: 5, charges: 5 });
  });

  it('fails only the records of a chunk the database refuses, at the source or at a segment, and stores and charges the rest once', async () => {
    await t.pool.query(`
      CREATE FUNCTION refuse_broken_segment() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.text LIKE 'broken segment%' THEN RAISE EXCEPTION 'value too long for type character varying(10)' USING ERRCODE = '22001'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_broken_segment BEFORE INSERT ON source_segments FOR EACH ROW EXECUTE FUNCTION refuse_broken_segment();`);
    const ws = await createWorkspace(t.pool, 100);
    const records = transcriptRecords(12);
    records[2] = { data: { title: 'poison first', transcript: 'Ann: hi\nBo: ho' } };
    records[7] = { data: { title: 'Call 7', transcript: 'Ann: broken segment here\nBo: fine' } };
    records[11] = { data: { title: 'poison last', transcript: 'Ann: hi\nBo: ho' } };
    const batchId = await land(t.pool, boss, ws, 'call', records);
    const ctx = testContext(t.pool, boss, testConfig(dataDir), { chunkSize: 50 });
    expect(await processBatch(ctx, { workspaceId: ws, batchId }, FIRST_ATTEMPT)).toBe('COMPLETE');
    const row = await batchRow(t.pool, batchId);
    expect(row).toMatchObject({ status: 'COMPLETE', processed_count: 9, credits_charged: 9, total_error_count: 3 });
    expect(row.errors.map((e) => [e.index, e.code])).toEqual([[2, 'SOURCE_STORE_FAILED'], [7, 'SOURCE_STORE_FAILED'], [11, 'SOURCE_STORE_FAILED']]);
    expect(await effects(t.pool, ws, batchId)).toEqual({ records: 12, processed: 12, sources: 9, charges: 9, charged: 9, duplicates: 0 });
    const { rows } = await t.pool.query<{ position: number; segments: number }>(
      `SELECT r.position, (SELECT count(*)::int FROM source_segments g WHERE g.source_id = s.id) AS segments
         FROM records r JOIN sources s ON s.record_id = r.id WHERE r.batch_id = $1 ORDER BY r.position`,
      [batchId],
    );
    expect(rows.map((r) => r.position)).toEqual([0, 1, 3, 4, 5, 6, 8, 9, 10]);
    expect(rows.every((r) => r.segments === 2)).toBe(true);
    expect(await balance(t.pool, ws)).toBe(91);
  });

  it('leaves records another attempt held mid-batch, and rolled back, to a later look that finishes them', async () => {
    const ws = await createWorkspace(t.pool);
    const batchId = await land(t.pool, boss, ws, 'call', transcriptRecords(10));
    const ctx = testContext(t.pool, boss, testConfig(dataDir), { chunkSize: 3 });
    const job = { workspaceId: ws, batchId };
    const stalled = await t.pool.connect();
    await stalled.query('BEGIN');
    await stalled.query('SELECT id FROM records WHERE batch_id = $1 AND position BETWEEN 3 AND 5 FOR UPDATE', [batchId]);
    try {
      expect(await processBatch(ctx, job, FIRST_ATTEMPT)).toBe('left-to-other-worker');
      expect(await batchRow(t.pool, batchId)).toMatchObject({ status: 'PROCESSING', processed_count: 7, credits_charged: 7 });
    } finally {
      await stalled.query('ROLLBACK');
      stalled.release();
    }
    expect(await processBatch(ctx, job, FIRST_ATTEMPT)).toBe('COMPLETE');
    expect(await batchRow(t.pool, batchId)).toMatchObject({ status: 'COMPLETE', processed_count: 10, credits_charged: 10 });
    expect(await effects(t.pool, ws, batchId)).toEqual({ records: 10, processed: 10, sources: 10, charges: 10, charged: 10, duplicates: 0 });
  });

  it('fails a batch none of whose records can become a source', async () => {
    const ws = await createWorkspace(t.pool);
    const batchId = await land(t.pool, boss, ws, 'document', [{ data: { title: 'poison a' } }, { data: { title: 'poison b' } }]);
    const ctx = testContext(t.pool, boss, testConfig(dataDir));
    expect(await processBatch(ctx, { workspaceId: ws, batchId }, FIRST_ATTEMPT)).toBe('FAILED');
    const row = await batchRow(t.pool, batchId);
    expect(row).toMatchObject({ status: 'FAILED', processed_count: 0, credits_charged: 0, total_error_count: 2 });
    expect(row.errors.map((e) => e.index)).toEqual([0, 1]);
  });

  it('retries a database failure and fails the batch on the last attempt, naming where it stopped', async () => {
    const ws = await createWorkspace(t.pool);
    const records = transcriptRecords(3);
    records[1] = { data: { title: 'outage here' } };
    const batchId = await land(t.pool, boss, ws, 'call', records);
    const ctx = testContext(t.pool, boss, testConfig(dataDir), { chunkSize: 10 });
    const job = { workspaceId: ws, batchId };
    const signal = new AbortController().signal;
    await expect(processBatch(ctx, job, { retryCount: 0, retryLimit: 1, signal })).rejects.toThrow(/simulated database outage/);
    expect(await batchRow(t.pool, batchId)).toMatchObject({ status: 'PROCESSING', processed_count: 0 });
    await expect(processBatch(ctx, job, { retryCount: 1, retryLimit: 1, signal })).rejects.toThrow(/simulated database outage/);
    const row = await batchRow(t.pool, batchId);
    expect(row).toMatchObject({ status: 'FAILED', processed_count: 0, credits_charged: 0 });
    expect(row.errors).toEqual([
      { index: 0, code: 'PROCESSING_FAILED', message: 'processing stopped after 2 attempts with 3 of 3 records unprocessed, from record 0' },
    ]);
    expect(await effects(t.pool, ws, batchId)).toMatchObject({ sources: 0, charges: 0 });
  });

  it('fails a batch whose job was dead-lettered, once', async () => {
    const ws = await createWorkspace(t.pool);
    const batchId = await land(t.pool, boss, ws, 'call', transcriptRecords(2));
    const ctx = testContext(t.pool, boss, testConfig(dataDir));
    const dead = { sourceName: 'batch.process', sourceRetryCount: 8, sourceOutput: { message: 'handler execution exceeded 900s' }, data: { workspaceId: ws, batchId } };
    expect(await handleDeadJob(ctx, dead)).toBe('batch-failed');
    expect(await handleDeadJob(ctx, dead)).toBe('batch-already-final');
    const row = await batchRow(t.pool, batchId);
    expect(row.status).toBe('FAILED');
    expect(row.errors).toHaveLength(1);
    expect(row.errors[0]!.message).toBe('processing stopped after 9 attempts with 2 of 2 records unprocessed, from record 0');
  });

  it('settles the downloads of a batch failed before it began, instead of leaving them PENDING', async () => {
    const ws = await createWorkspace(t.pool);
    const withFiles = transcriptRecords(2).map((r) => ({ ...r, attachments: [{ type: 'audio' as const, vendor_url: 'https://files.example/a.mp3' }] }));
    const batchId = await land(t.pool, boss, ws, 'call', [...withFiles, ...transcriptRecords(1)]);
    expect(await batchRow(t.pool, batchId)).toMatchObject({ status: 'LANDED', attachment_download_status: 'PENDING', attachment_download_total: 2 });
    const ctx = testContext(t.pool, boss, testConfig(dataDir));
    const dead = { sourceName: 'batch.process', sourceRetryCount: 8, sourceOutput: null, data: { workspaceId: ws, batchId } };
    expect(await handleDeadJob(ctx, dead)).toBe('batch-failed');
    expect(await batchRow(t.pool, batchId)).toMatchObject({
      status: 'FAILED', attachment_download_status: 'FAILED', attachment_download_total: 2, attachment_download_failed: 2, attachment_download_complete: 0,
    });
    const { rows } = await t.pool.query<{ status: string }>('SELECT status FROM attachments WHERE batch_id = $1', [batchId]);
    expect(rows.map((r) => r.status)).toEqual(['FAILED', 'FAILED']);
  });

  it('leaves a job behind when another attempt holds the last records, so their rollback cannot strand the batch', async () => {
    const ws = await createWorkspace(t.pool);
    const batchId = await land(t.pool, boss, ws, 'call', transcriptRecords(5));
    const ctx = testContext(t.pool, boss, testConfig(dataDir), { chunkSize: 10 });
    const job = { workspaceId: ws, batchId };
    // A stalled first attempt holds every record.
    const stalled = await t.pool.connect();
    await stalled.query('BEGIN');
    await stalled.query('SELECT id FROM records WHERE batch_id = $1 FOR UPDATE', [batchId]);
    const jobsOf = async () => (await t.pool.query<{ state: string; start_after: Date }>(
      `SELECT state, start_after FROM pgboss.job WHERE name = 'batch.process' AND data->>'batchId' = $1 AND state = 'created' ORDER BY created_on`,
      [batchId],
    )).rows;
    const before = (await jobsOf()).length;
    try {
      expect(await processBatch(ctx, job, FIRST_ATTEMPT)).toBe('left-to-other-worker');
    } finally {
      await stalled.query('ROLLBACK'); // …and then that attempt fails.
      stalled.release();
    }
    const after = await jobsOf();
    expect(after).toHaveLength(before + 1);
    expect(after.at(-1)!.start_after.getTime()).toBeGreaterThan(Date.now() + 20_000);
    expect(await batchRow(t.pool, batchId)).toMatchObject({ status: 'PROCESSING', processed_count: 0 });
    // The delayed job, when its time comes, finishes the batch.
    expect(await processBatch(ctx, job, FIRST_ATTEMPT)).toBe('COMPLETE');
    expect(await effects(t.pool, ws, batchId)).toMatchObject({ processed: 5, sources: 5, charges: 5 });
  });
});
