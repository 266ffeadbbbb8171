/**
 * Deleting customer evidence (issue 28 items 1 and 5): a source and the record it was built from are one
 * piece of customer data, so deleting either deletes both, with everything that hangs off them: the
 * source's segments and search document (its row), its vector (its row, and a `source_deletions` entry
 * so every MCP server's in-memory index drops the id), the workspace's vocabulary for search (emptied, to be
 * learned again without it), the signals taken from it and their history,
 * its share of opportunities, the record's attachments and their stored files. Credits stay charged.
 *
 * Safe beside the worker: the records are locked first (the worker holds a record's row while it turns
 * it into a source), so a delete waits for a chunk in progress and then sees the source it created;
 * a deleted record is never taken again, so nothing comes back.
 */
import { finalDownloadStatus, transitionDownloads, type DownloadStatus } from '@loupe/batches';
import { withTransaction } from '@loupe/db';
import { removeSignalsOfSources } from '@loupe/evidence';
import { EMPTY_VOCABULARY } from '@loupe/sources';
import type { Clock } from '@loupe/http';
import type { Storage } from '@loupe/storage';
import type pg from 'pg';

export interface LifecycleDeps {
  pool: pg.Pool;
  /** Where attachment files are stored: a deleted record's files are deleted from it. */
  storage: Storage;
  clock: Clock;
  log?: { warn(obj: object, msg: string): void };
}

/** At most this many ids in one request (the API's batch form, the CLI). */
export const MAX_DELETE_IDS = 100;

export interface DeletionRequest {
  sourceIds?: readonly string[];
  recordIds?: readonly string[];
}

export interface DeletionResult {
  /** Sources deleted, each with the record it was built from (null: written over MCP with add_source). */
  sources: Array<{ id: string; recordId: string | null }>;
  /** Records deleted, each with its source (null: it had not become one, or could not). */
  records: Array<{ id: string; sourceId: string | null }>;
  /** Asked-for ids that are not in the workspace: never there, another workspace's, or already deleted. */
  missingSourceIds: string[];
  missingRecordIds: string[];
  /** Signals removed with the sources. */
  signals: number;
  /** Products whose opportunities changed. */
  productIds: string[];
  /** Stored attachment files deleted. */
  files: number;
}

/** Where the worker stores an attachment's file (apps/worker download-attachment). */
const attachmentKey = (workspaceId: string, batchId: string, attachmentId: string) => `${workspaceId}/${batchId}/${attachmentId}`;

/**
 * Runs the transaction again when PostgreSQL ended it to break a deadlock: the worker embedding a
 * slice of sources locks them in its own order, and a delete of several may meet it.
 */
async function retryingDeadlocks<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (i >= attempts || (code !== '40P01' && code !== '40001')) throw error;
    }
  }
}

/**
 * Deletes sources and records of one workspace, all in one transaction; ids of other workspaces are
 * simply not found. Files are deleted from storage once the rows are gone (a crash in between leaves
 * files no row points to; see docs/ingest/export-and-deletion.md).
 */
export async function deleteEvidence(deps: LifecycleDeps, workspaceId: string, request: DeletionRequest): Promise<DeletionResult> {
  const sourceIds = [...new Set(request.sourceIds ?? [])];
  const recordIds = [...new Set(request.recordIds ?? [])];
  const now = new Date(deps.clock.now());
  const outcome = await retryingDeadlocks(() => withTransaction(deps.pool, async (client) => {
    // 1. The records, locked: waits for a worker's chunk that holds them.
    const { rows: lockedRecords } = await client.query<{ id: string; batch_id: string }>(
      `SELECT id, batch_id FROM records
        WHERE workspace_id = $1 AND (id = ANY($2) OR id IN (SELECT record_id FROM sources WHERE workspace_id = $1 AND id = ANY($3) AND record_id IS NOT NULL))
        ORDER BY id FOR UPDATE`,
      [workspaceId, recordIds, sourceIds],
    );
    // 2. The sources: asked for, or built from those records (read after the lock: a chunk that just committed is seen).
    const { rows: sources } = await client.query<{ id: string; record_id: string | null }>(
      `SELECT id, record_id FROM sources WHERE workspace_id = $1 AND (id = ANY($2) OR record_id = ANY($3)) ORDER BY id FOR UPDATE`,
      [workspaceId, sourceIds, lockedRecords.map((r) => r.id)],
    );
    const records = new Map(lockedRecords.map((r) => [r.id, r]));
    const unlocked = sources.map((s) => s.record_id).filter((id): id is string => id !== null && !records.has(id));
    if (unlocked.length) {
      const { rows } = await client.query<{ id: string; batch_id: string }>(
        'SELECT id, batch_id FROM records WHERE workspace_id = $1 AND id = ANY($2) ORDER BY id FOR UPDATE',
        [workspaceId, unlocked],
      );
      for (const r of rows) records.set(r.id, r);
    }
    const deletedSourceIds = sources.map((s) => s.id);
    const deletedRecordIds = [...records.keys()];

    // 3. Signals and their share of opportunities.
    const signals = await removeSignalsOfSources(client, workspaceId, deletedSourceIds, now);

    // 4. Attachments: their files after commit; downloads that will now never finish leave the batch's total.
    const { rows: attachments } = await client.query<{ id: string; batch_id: string; status: string; storage_key: string | null }>(
      'SELECT id, batch_id, status, storage_key FROM attachments WHERE workspace_id = $1 AND record_id = ANY($2)',
      [workspaceId, deletedRecordIds],
    );
    const perBatch = new Map<string, { records: number; unfinished: number }>();
    for (const r of records.values()) {
      const b = perBatch.get(r.batch_id) ?? { records: 0, unfinished: 0 };
      b.records += 1;
      perBatch.set(r.batch_id, b);
    }
    for (const a of attachments) {
      if (a.status === 'PENDING' || a.status === 'DOWNLOADING') perBatch.get(a.batch_id)!.unfinished += 1;
    }

    // 5. The rows. Segments go with their source (cascade), attachments with their record.
    if (deletedSourceIds.length) await client.query('DELETE FROM sources WHERE workspace_id = $1 AND id = ANY($2)', [workspaceId, deletedSourceIds]);
    if (deletedRecordIds.length) await client.query('DELETE FROM records WHERE workspace_id = $1 AND id = ANY($2)', [workspaceId, deletedRecordIds]);

    // 6. The batches keep what they received and processed as history and count what was deleted.
    for (const [batchId, b] of [...perBatch].sort(([x], [y]) => x.localeCompare(y))) {
      const { rows } = await client.query<{ total: number; complete: number; failed: number; status: DownloadStatus | null }>(
        `UPDATE batches SET deleted_count = deleted_count + $3, attachment_download_total = attachment_download_total - $4, updated_at = $5
          WHERE workspace_id = $1 AND id = $2
          RETURNING attachment_download_total AS total, attachment_download_complete AS complete,
                    attachment_download_failed AS failed, attachment_download_status AS status`,
        [workspaceId, batchId, b.records, b.unfinished, now],
      );
      const batch = rows[0];
      if (!batch || b.unfinished === 0) continue;
      const final = finalDownloadStatus(batch.total, batch.complete, batch.failed);
      if (final && (batch.status === 'PENDING' || batch.status === 'IN_PROGRESS')) await transitionDownloads(client, batchId, batch.status, final);
    }

    // 7. The files to delete once this commits, written down with it: a crash in between leaves them to the sweep.
    const keys = attachments.map((a) => a.storage_key ?? attachmentKey(workspaceId, a.batch_id, a.id));
    if (keys.length) {
      await client.query('INSERT INTO storage_deletions (key, workspace_id, created_at) SELECT unnest($1::text[]), $2, $3 ON CONFLICT (key) DO NOTHING', [keys, workspaceId, now]);
    }

    // 8. Last, so its seq is taken just before commit: the MCP servers' indexes drop these ids. The workspace's
    //    vocabulary for search holds words of these sources: it is emptied, and learned again from what is left.
    if (deletedSourceIds.length) {
      await client.query('INSERT INTO source_deletions (workspace_id, source_id, deleted_at) SELECT $1, unnest($2::text[]), $3', [workspaceId, deletedSourceIds, now]);
      await client.query(EMPTY_VOCABULARY, [workspaceId, now]);
    }
    const sourceOf = new Map(sources.filter((s) => s.record_id).map((s) => [s.record_id!, s.id]));
    return {
      sources: sources.map((s) => ({ id: s.id, recordId: s.record_id })),
      records: deletedRecordIds.map((id) => ({ id, sourceId: sourceOf.get(id) ?? null })),
      missingSourceIds: sourceIds.filter((id) => !sources.some((s) => s.id === id)),
      missingRecordIds: recordIds.filter((id) => !records.has(id)),
      signals: signals.removed,
      productIds: signals.productIds,
      keys,
    };
  }));
  const { keys, ...result } = outcome;
  return { ...result, files: await deleteFiles(deps, keys) };
}

/**
 * Deletes the files from storage and their storage_deletions rows; a file that cannot be deleted keeps its row for the sweep.
 * Call it after the transaction that wrote the rows commits (libs/erasure does too): a rolled-back one leaves its files.
 */
export async function deleteFiles(deps: Pick<LifecycleDeps, 'pool' | 'storage' | 'log'>, keys: readonly string[]): Promise<number> {
  let files = 0;
  const gone: string[] = [];
  for (const key of keys) {
    try {
      if (await deps.storage.delete(key)) files += 1;
      gone.push(key);
    } catch (error) {
      deps.log?.warn({ err: error, key }, 'the stored file of a deleted attachment could not be deleted; the sweep tries again');
    }
  }
  if (gone.length) await deps.pool.query('DELETE FROM storage_deletions WHERE key = ANY($1)', [gone]);
  return files;
}

/**
 * Deletes the files a deletion wrote down and did not get to (a crash or a storage error after the
 * commit), those written more than `olderThanMs` ago (so as not to race a deletion still at work), up
 * to `limit`. Returns how many rows were settled.
 */
export async function sweepStorageDeletions(deps: LifecycleDeps, olderThanMs = 10 * 60_000, limit = 1_000): Promise<number> {
  const { rows } = await deps.pool.query<{ key: string }>(
    'SELECT key FROM storage_deletions WHERE created_at < $1 ORDER BY created_at LIMIT $2',
    [new Date(deps.clock.now() - olderThanMs), limit],
  );
  const before = rows.length;
  if (!before) return 0;
  await deleteFiles(deps, rows.map((r) => r.key));
  const { rows: left } = await deps.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM storage_deletions WHERE key = ANY($1)', [rows.map((r) => r.key)]);
  return before - left[0]!.n;
}

/** Stored file of an attachment whose row is gone (deleted while it downloaded): true when it was deleted. */
export async function attachmentWasDeleted(db: Pick<pg.Pool, 'query'>, attachmentId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM attachments WHERE id = $1', [attachmentId]);
  return rowCount === 0;
}
