import { randomBytes } from 'node:crypto';
import { landBatch } from '@loupe/batches';
import { loadConfig, type Config } from '@loupe/config';
import { grantCredits } from '@loupe/credits';
import { newId } from '@loupe/db';
import { createLogger } from '@loupe/http';
import { QUEUES, createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { createSafeFetch } from '@loupe/safe-fetch';
import { createLocalStorage } from '@loupe/storage';
import { dedupKeyOf, type AcceptedRecord, type AttachmentInput, type RecordType } from '@loupe/records';
import type pg from 'pg';
import type { WorkerContext } from '../context';
import { DEFAULT_OPTIONS, type WorkerOptions } from '../options';

export const silentLog = createLogger('silent');

export function testConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({ DATA_DIR: dataDir, FETCH_ALLOW_LOOPBACK: 'true', WORKER_CONCURRENCY: '2', SHUTDOWN_TIMEOUT_MS: '5000', ...env });
}

export const FAST_OPTIONS: Partial<WorkerOptions> = {
  chunkSize: 50,
  pollingIntervalSeconds: 0.5,
  downloadTimeouts: { connectMs: 2000, responseMs: 1000, idleMs: 1000, totalMs: 10_000 },
};

/** A context for calling the handlers directly, without pg-boss in between. */
export function testContext(pool: pg.Pool, boss: Boss, config: Config, options: Partial<WorkerOptions> = {}): WorkerContext {
  return {
    pool,
    boss,
    clock: { now: () => Date.now() },
    log: silentLog,
    config,
    storage: createLocalStorage(config.dataDir),
    fetch: createSafeFetch({ allowLoopback: true }),
    options: { ...DEFAULT_OPTIONS, ...FAST_OPTIONS, ...options },
    shutdown: new AbortController().signal,
  };
}

export const FIRST_ATTEMPT = { retryCount: 0, retryLimit: 3, signal: new AbortController().signal };

/**
 * A started pg-boss with the worker queues. Retry policies given here are created before
 * `ensureQueues`, which leaves existing queues alone: tests use short ones.
 */
export async function startBoss(
  url: string,
  policies: { batch?: Record<string, unknown>; download?: Record<string, unknown> } = {},
): Promise<Boss> {
  const boss = createBoss({ connectionString: url, supervise: false });
  boss.on('error', () => {});
  await boss.start();
  const existing = new Set((await boss.getQueues()).map((q) => q.name));
  const create = async (name: string, options: Record<string, unknown> | undefined) => {
    if (!options || existing.has(name)) return;
    await boss.createQueue(name, options).catch(async (error: unknown) => {
      if (!(await boss.getQueue(name))) throw error;
    });
  };
  await create(QUEUES.deadLetter, { retentionSeconds: 3600 });
  await create(QUEUES.processBatch, policies.batch && { deadLetter: QUEUES.deadLetter, expireInSeconds: 120, ...policies.batch });
  await create(QUEUES.downloadAttachment, policies.download && { deadLetter: QUEUES.deadLetter, expireInSeconds: 120, ...policies.download });
  await ensureQueues(boss);
  return boss;
}

export async function createWorkspace(pool: pg.Pool, credits = 0): Promise<string> {
  const id = newId('ws');
  await pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Test workspace')", [id]);
  if (credits > 0) {
    await grantCredits(pool, id, credits, 'grant:test');
  }
  return id;
}

/** A product with one ready source to hang signals on. */
export async function createProductWithSource(pool: pg.Pool, workspaceId: string): Promise<{ prod: string; src: string }> {
  const prod = newId('prod');
  const src = newId('src');
  await pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, workspaceId, 'P']);
  await pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call', '2026-10-01T00:00:00Z', 'ready')`,
    [src, workspaceId, prod],
  );
  return { prod, src };
}

export interface TestRecord {
  data: Record<string, unknown>;
  attachments?: AttachmentInput[];
}

/** Lands a batch exactly as the ingest API does: batch, records, attachments and its job. */
export async function land(
  pool: pg.Pool,
  boss: Boss,
  workspaceId: string,
  type: RecordType,
  records: TestRecord[],
): Promise<string> {
  const run = randomBytes(4).toString('hex');
  const accepted: AcceptedRecord[] = records.map((r, index) => {
    const vendorIds = { crm: `${run}-${index}` };
    const eventAt = '2026-01-02T03:04:05Z';
    return {
      index,
      record: {
        _type: type,
        _schema_version: '1.0.0',
        _event_at: eventAt,
        _vendor_ids: vendorIds,
        _product_id: 'prod_test',
        _project_ids: ['proj_test'],
        _nature: 'evidence',
        data: r.data,
        ...(r.attachments ? { _attachments: r.attachments } : {}),
      },
      rawData: JSON.stringify(r.data),
      eventAt,
      dedupKey: dedupKeyOf(type, vendorIds, eventAt),
    };
  });
  const landed = await landBatch(pool, boss, {
    workspaceId,
    apiKeyId: null,
    productId: 'prod_test',
    type,
    source: 'api',
    format: undefined,
    accepted,
    rejectedCount: 0,
    totalErrorCount: 0,
    errors: [],
    now: Date.now(),
  });
  return landed.batchId;
}

export function transcriptRecords(count: number): TestRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    data: { title: `Call ${i}`, transcript: `Ann: Hello number ${i}\nBo: Exports are slow, said customer ${i}` },
  }));
}

export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface BatchRow {
  status: string;
  processed_count: number;
  credits_charged: number;
  total_error_count: number;
  errors: { index: number; code: string; message: string }[];
  attachment_download_total: number;
  attachment_download_complete: number;
  attachment_download_failed: number;
  attachment_download_status: string | null;
}

export async function batchRow(pool: pg.Pool, batchId: string): Promise<BatchRow> {
  const { rows } = await pool.query<BatchRow>('SELECT * FROM batches WHERE id = $1', [batchId]);
  if (!rows[0]) throw new Error(`batch ${batchId} not found`);
  return rows[0];
}

export async function waitForBatch(pool: pg.Pool, batchId: string, statuses: string[], timeoutMs = 20_000): Promise<BatchRow> {
  return waitFor(`batch ${batchId} to reach ${statuses.join('/')}`, async () => {
    const row = await batchRow(pool, batchId);
    return statuses.includes(row.status) && row;
  }, timeoutMs);
}

/** Every processing effect of a batch, counted from the tables themselves. */
export async function effects(pool: pg.Pool, workspaceId: string, batchId: string) {
  const { rows } = await pool.query<{ records: number; processed: number; sources: number; charges: number; charged: number; duplicates: number }>(
    `SELECT
       (SELECT count(*)::int FROM records WHERE batch_id = $2) AS records,
       (SELECT count(*)::int FROM records WHERE batch_id = $2 AND processed_at IS NOT NULL) AS processed,
       (SELECT count(*)::int FROM sources s JOIN records r ON r.id = s.record_id WHERE r.batch_id = $2) AS sources,
       (SELECT count(*)::int FROM credit_ledger l JOIN records r ON l.reference = 'record:' || r.id
         WHERE l.workspace_id = $1 AND r.batch_id = $2 AND l.kind = 'charge') AS charges,
       (SELECT COALESCE(-sum(l.amount), 0)::int FROM credit_ledger l JOIN records r ON l.reference = 'record:' || r.id
         WHERE l.workspace_id = $1 AND r.batch_id = $2) AS charged,
       (SELECT count(*)::int FROM (SELECT record_id FROM sources GROUP BY record_id HAVING count(*) > 1) d) AS duplicates`,
    [workspaceId, batchId],
  );
  return rows[0]!;
}
