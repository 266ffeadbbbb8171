import { acceptRecords } from '@loupe/batches';
import { screenSuppressed } from '@loupe/erasure';
import type { Clock, Logger } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import { itemOfRecord } from '@loupe/records';
import { StorageNotFoundError, type Storage } from '@loupe/storage';
import type pg from 'pg';
import { mapFileRow, RECORDS_PER_REQUEST } from './map-rows';
import { storable } from './mapping';
import { FileReadError, readRows, type FileRow } from './read-rows';
import { getFileImport, MAX_NAMED_REFUSALS, type FileImport, type Refusal } from './store';

export interface ImportRunDeps {
  pool: pg.Pool;
  boss: Boss;
  storage: Storage;
  clock: Clock;
  log: Logger;
  /** Awaited between slices (the worker inside `npm start` lets requests go first). */
  between?: () => Promise<void>;
  /** Rows per slice (one landing transaction each); 1,000, the API's bound, by default. */
  rowsPerSlice?: number;
}

export type ImportRunOutcome =
  | { status: 'skipped'; reason: string }
  | { status: 'done' | 'failed'; rowsRead: number; stored: number; duplicates: number; refused: number; error?: string };

const IMPORT_LOCK_NAMESPACE = 45_0001;

/**
 * Runs an import queued from the console: the stored file read as a stream, a slice of at most 1,000 rows at a
 * time (a change of `_type` starts a new slice: a landing holds one type), each row mapped and checked as in the
 * preview, the valid records of the slice through `acceptRecords` (the ingestion API's own path, with its
 * suppression screen), and the slice's counts, refused rows and cursor (rows consumed) saved in the transaction
 * that lands it. A retry (a worker killed, a deploy) skips the rows consumed and goes on: nothing is stored
 * twice, and a record sent again (the same file imported twice) is a duplicate by its `_type`, `_vendor_ids` and
 * `_event_at`, stored once. A file unreadable past some point (a quote never closed) ends the import as failed,
 * naming where; what was before it stays stored.
 */
export async function runFileImport(
  deps: ImportRunDeps,
  workspaceId: string,
  importId: string,
  options: { signal?: AbortSignal; finalAttempt?: boolean } = {},
): Promise<ImportRunOutcome> {
  const lock = await deps.pool.connect();
  try {
    const { rows } = await lock.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [IMPORT_LOCK_NAMESPACE, importId]);
    if (!rows[0]!.locked) return { status: 'skipped', reason: 'running elsewhere' };
    try {
      return await runLocked(deps, workspaceId, importId, options);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [IMPORT_LOCK_NAMESPACE, importId]);
    }
  } finally {
    lock.release();
  }
}

async function runLocked(deps: ImportRunDeps, workspaceId: string, importId: string, options: { signal?: AbortSignal; finalAttempt?: boolean }): Promise<ImportRunOutcome> {
  const job = await getFileImport(deps.pool, workspaceId, importId);
  if (!job) return { status: 'skipped', reason: 'not found' };
  if (job.status !== 'queued' && job.status !== 'running') return { status: 'skipped', reason: job.status };
  if (!job.mapping || !job.productId || !job.projectId) return finish(deps, job, 'failed', 'The import has no valid mapping: map its columns again and start a new import.');
  const now = () => new Date(deps.clock.now());
  await deps.pool.query(
    `UPDATE file_imports SET status = 'running', started_at = COALESCE(started_at, $3), last_error = NULL, updated_at = $3 WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, importId, now()],
  );
  const mapping = job.mapping;
  const defaults = { productId: job.productId, projectIds: [job.projectId] };
  const perSlice = deps.rowsPerSlice ?? RECORDS_PER_REQUEST;
  const counter = { bytes: 0 };
  /** Bytes up to the end of the last row consumed (the stream reads ahead of it). */
  let position = 0;
  let rowsRead = job.rowsRead;
  let named = job.refusals.length;

  let records: Array<{ where: FileRow['where']; record: Record<string, unknown> }> = [];
  let refusals: Refusal[] = [];
  let sliceRows = 0;

  /** Saves the slice's progress: the cursor, counts and named refusals, only if no other run moved the cursor. */
  const save = async (db: Pick<pg.Pool, 'query'>, counts: { stored: number; duplicates: number; refused: number }, refused: Refusal[]) => {
    const keep = refused.slice(0, Math.max(0, MAX_NAMED_REFUSALS - named)).map((r) => ({ where: r.where, problems: r.problems.map(storable) }));
    const { rowCount } = await db.query(
      `UPDATE file_imports SET rows_read = $4, bytes_read = GREATEST(bytes_read, $5), stored_count = stored_count + $6, duplicates_count = duplicates_count + $7,
              refused_count = refused_count + $8, refusals = refusals || $9::jsonb, updated_at = $10
        WHERE workspace_id = $1 AND id = $2 AND rows_read = $3`,
      [workspaceId, importId, rowsRead, rowsRead + sliceRows, Math.min(position, job.sizeBytes), counts.stored, counts.duplicates, counts.refused, JSON.stringify(keep), now()],
    );
    if (!rowCount) throw new Error(`import ${importId}: its cursor moved under this run (another run of it?); retried from the saved cursor`);
    named += keep.length;
  };

  const flush = async () => {
    if (!sliceRows) return;
    const slice = records;
    const own = refusals;
    if (slice.length) {
      const outcome = await acceptRecords({ pool: deps.pool, boss: deps.boss, screen: screenSuppressed }, {
        workspaceId, apiKeyId: null, source: 'file-import', format: 'text',
        items: slice.map((r, index) => ({ ...itemOfRecord(r.record), index })), now: deps.clock.now(),
      }, async (client, accepted) => {
        const byApi = refusalsOf(slice, accepted.errors);
        await save(client, { stored: accepted.insertedCount, duplicates: accepted.duplicateCount, refused: own.length + accepted.rejectedCount }, mergeByPlace([...own, ...byApi]));
      });
      if (!outcome.landed) {
        const byApi = refusalsOf(slice, outcome.errors);
        // Every record of the slice refused by a rule of the request (a product deleted meanwhile): named by their first error.
        const unnamed = outcome.errors.length ? [] : slice.map((r) => ({ where: r.where, problems: [`${outcome.code}: ${outcome.message}`] }));
        await save(deps.pool, { stored: 0, duplicates: 0, refused: own.length + slice.length }, mergeByPlace([...own, ...byApi, ...unnamed]));
      }
    } else {
      await save(deps.pool, { stored: 0, duplicates: 0, refused: own.length }, own);
    }
    rowsRead += sliceRows;
    sliceRows = 0;
    records = [];
    refusals = [];
    await deps.between?.();
    if (options.signal?.aborted) throw new Error(`the worker stopped after ${rowsRead.toLocaleString('en-US')} rows, for a restart or a deploy`);
  };

  try {
    let seen = 0;
    for await (const row of readRows(() => deps.storage.get(job.storageKey), { format: job.format, counter })) {
      if (seen++ < job.rowsRead) continue;
      position = row.end ?? counter.bytes;
      const mapped = mapFileRow(mapping, row, defaults);
      if (!mapped.record || mapped.problems.length) {
        refusals.push({ where: mapped.where, problems: mapped.problems });
      } else {
        if (records.length && records[0]!.record._type !== mapped.record._type) await flush();
        records.push({ where: mapped.where, record: mapped.record });
      }
      sliceRows++;
      if (sliceRows >= perSlice) await flush();
    }
    await flush();
  } catch (error) {
    if (error instanceof StorageNotFoundError) {
      return finish(deps, { ...job, rowsRead }, 'failed', `The uploaded file is not in storage any more, after ${rowsRead.toLocaleString('en-US')} rows were imported: upload it again to import the rest (nothing is stored twice).`);
    }
    if (error instanceof FileReadError) {
      await flush().catch(() => {});
      return finish(deps, { ...job, rowsRead }, 'failed', `${error.message}. The ${rowsRead.toLocaleString('en-US')} rows before it were imported.`);
    }
    const message = (error as Error).message;
    await deps.pool.query('UPDATE file_imports SET last_error = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2', [workspaceId, importId, storable(message.slice(0, 1000)), now()]);
    if (options.finalAttempt) return finish(deps, { ...job, rowsRead }, 'failed', `The import stopped after ${rowsRead.toLocaleString('en-US')} rows and was not retried again: ${message}`);
    throw error;
  }
  return finish(deps, { ...job, rowsRead }, 'done');
}

/** The API's refusals of a slice's records, by the rows they came from. */
function refusalsOf(slice: Array<{ where: FileRow['where'] }>, errors: Array<{ index: number; code: string; message: string }>): Refusal[] {
  const byIndex = new Map<number, string[]>();
  for (const e of errors) byIndex.set(e.index, [...(byIndex.get(e.index) ?? []), `${e.code}: ${e.message}`]);
  return [...byIndex].flatMap(([index, problems]) => (slice[index] ? [{ where: slice[index].where, problems }] : []));
}

const placeOf = (where: FileRow['where']) => ('line' in where ? where.line : where.item);
const mergeByPlace = (refusals: Refusal[]) => refusals.sort((a, b) => placeOf(a.where) - placeOf(b.where));

async function finish(deps: ImportRunDeps, job: FileImport, status: 'done' | 'failed', error?: string): Promise<ImportRunOutcome> {
  const { rows } = await deps.pool.query<{ stored_count: number; duplicates_count: number; refused_count: number; rows_read: number }>(
    `UPDATE file_imports SET status = $3, last_error = $4, finished_at = $5, updated_at = $5, bytes_read = CASE WHEN $3 = 'done' THEN size_bytes ELSE bytes_read END
      WHERE workspace_id = $1 AND id = $2 RETURNING stored_count, duplicates_count, refused_count, rows_read`,
    [job.workspaceId, job.id, status, error ?? null, new Date(deps.clock.now())],
  );
  // The upload is not needed any more: a new import of the same file is a new upload.
  await deps.storage.delete(job.storageKey).catch((e: unknown) => deps.log.warn({ importId: job.id, error: (e as Error).message }, 'the uploaded file of a finished import could not be deleted'));
  const r = rows[0]!;
  deps.log.info({ workspaceId: job.workspaceId, importId: job.id, status, rowsRead: r.rows_read, stored: r.stored_count, duplicates: r.duplicates_count, refused: r.refused_count }, 'file import finished');
  return { status, rowsRead: r.rows_read, stored: r.stored_count, duplicates: r.duplicates_count, refused: r.refused_count, ...(error ? { error } : {}) };
}
