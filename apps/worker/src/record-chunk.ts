import { chargeMany } from '@loupe/credits';
import { withTransaction } from '@loupe/db';
import { buildSource, insertSources, type CreatedSource, type SourceDraft, type SourceRecord } from '@loupe/sources';
import type pg from 'pg';
import { errorMessage, type WorkerContext } from './context';

export interface RecordError {
  index: number;
  code: string;
  message: string;
}

/**
 * What a batch's `errors` say about a record that failed: fixed text per code, because the API
 * returns them and exception text carries internals (constraint names, ids). The detail goes to the log.
 */
export const RECORD_FAILURE_MESSAGES = {
  SOURCE_BUILD_FAILED: 'record could not be turned into a source: its data holds nothing a source can be built from',
  SOURCE_STORE_FAILED: 'record could not be stored as a source: a value in it was refused (too long, out of range or malformed)',
} as const;

interface FailureDetail {
  recordId: string;
  error: string;
}

export interface ChunkResult {
  /** Records this chunk took (0: none left that no other worker holds). */
  taken: number;
  /** Position of the last record taken: where the next chunk of this attempt starts. */
  lastPosition: number;
  processed: number;
  failed: number;
  charged: number;
}

interface RecordRow {
  id: string;
  position: number;
  workspace_id: string;
  product_id: string;
  project_ids: string[] | null;
  type: string;
  nature: string;
  event_at: Date;
  thread_id: string | null;
  participants: unknown[] | null;
  tags: string[] | null;
  data: string;
}

// SKIP LOCKED: two workers on one batch take disjoint chunks; a locked row is someone else's.
// Scoped to the workspace through its batch, so the only index the planner can use is
// (batch_id, position): with a fresh table's statistics it would otherwise intersect it with the
// workspace's whole dedup index. `position > $3` starts after this attempt's last chunk, so a large
// batch is not rescanned from its start for every chunk; rows below it that another attempt held
// and then rolled back are left to that attempt's retry (or to `finish`'s delayed look).
const TAKE_RECORDS = `
  SELECT id, position, workspace_id, product_id, project_ids, type, nature, event_at, thread_id, participants, tags,
         data::text AS data
    FROM records
   WHERE batch_id = (SELECT id FROM batches WHERE id = $1 AND workspace_id = $2) AND position > $3 AND processed_at IS NULL
   ORDER BY position
   LIMIT $4
     FOR UPDATE SKIP LOCKED`;

/** SQLSTATE classes that say "this row's data", not "the database": 22 data, 23 integrity, 54 limits. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^(22|23|54)/.test(code);
}

function toSourceRecord(row: RecordRow): SourceRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    productId: row.product_id,
    projectIds: row.project_ids ?? [],
    type: row.type,
    nature: row.nature,
    eventAt: row.event_at,
    threadId: row.thread_id,
    participants: row.participants,
    tags: row.tags ?? [],
    data: JSON.parse(row.data) as unknown,
  };
}

/**
 * Stores the drafts in one statement; if the database rejects that for a data reason, stores
 * them one by one so only the offending records fail.
 */
async function storeSources(
  client: pg.PoolClient,
  drafts: SourceDraft[],
  positions: Map<string, number>,
  failures: RecordError[],
  details: FailureDetail[],
  now: Date,
): Promise<CreatedSource[]> {
  if (drafts.length === 0) return [];
  await client.query('SAVEPOINT chunk_sources');
  try {
    const created = await insertSources(client, drafts, now);
    await client.query('RELEASE SAVEPOINT chunk_sources');
    return created;
  } catch (error) {
    if (!isDataError(error)) throw error;
    await client.query('ROLLBACK TO SAVEPOINT chunk_sources');
  }
  const created: CreatedSource[] = [];
  for (const draft of drafts) {
    await client.query('SAVEPOINT one_source');
    try {
      created.push(...(await insertSources(client, [draft], now)));
      await client.query('RELEASE SAVEPOINT one_source');
    } catch (error) {
      if (!isDataError(error)) throw error;
      await client.query('ROLLBACK TO SAVEPOINT one_source');
      failures.push({ index: positions.get(draft.recordId) ?? 0, code: 'SOURCE_STORE_FAILED', message: RECORD_FAILURE_MESSAGES.SOURCE_STORE_FAILED });
      details.push({ recordId: draft.recordId, error: errorMessage(error) });
    }
  }
  return created;
}

/**
 * Takes the next unprocessed records of a batch and, in one transaction: creates their sources,
 * charges 1 credit each (reference `record:<id>`), marks them processed and adds to the batch
 * counters. A crash rolls all of it back; a second worker skips the rows this one holds; a
 * record is never processed or charged twice.
 */
export async function processChunk(ctx: WorkerContext, workspaceId: string, batchId: string, after = -1): Promise<ChunkResult> {
  const now = new Date(ctx.clock.now());
  return withTransaction(ctx.pool, async (client) => {
    const { rows } = await client.query<RecordRow>(TAKE_RECORDS, [batchId, workspaceId, after, ctx.options.chunkSize]);
    if (rows.length === 0) return { taken: 0, lastPosition: after, processed: 0, failed: 0, charged: 0 };
    const positions = new Map(rows.map((r) => [r.id, r.position]));
    const failures: RecordError[] = [];
    const details: FailureDetail[] = [];
    const drafts: SourceDraft[] = [];
    for (const row of rows) {
      try {
        drafts.push(buildSource(toSourceRecord(row)));
      } catch (error) {
        failures.push({ index: row.position, code: 'SOURCE_BUILD_FAILED', message: RECORD_FAILURE_MESSAGES.SOURCE_BUILD_FAILED });
        details.push({ recordId: row.id, error: errorMessage(error) });
      }
    }
    const created = await storeSources(client, drafts, positions, failures, details, now);
    await client.query('UPDATE records SET processed_at = $2 WHERE id = ANY($1::text[]) AND processed_at IS NULL', [
      rows.map((r) => r.id),
      now,
    ]);
    // Last: the charge takes the workspace's credit lock, held until this transaction commits.
    const charge = created.length
      ? await chargeMany(
          client,
          workspaceId,
          created.map((c) => ({ amount: 1, reference: `record:${c.recordId}`, description: `record ${c.recordId} of batch ${batchId}` })),
        )
      : { charged: 0 };
    await client.query(
      `UPDATE batches
          SET processed_count = processed_count + $2,
              credits_charged = credits_charged + $3,
              total_error_count = total_error_count + $4,
              errors = CASE WHEN jsonb_array_length(errors) >= $6 THEN errors
                            ELSE errors || COALESCE((SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements($5::jsonb) WITH ORDINALITY AS x(e, i)
                                                      WHERE i <= $6 - jsonb_array_length(batches.errors)), '[]'::jsonb) END,
              updated_at = $7
        WHERE id = $1`,
      [batchId, created.length, charge.charged, failures.length, JSON.stringify(failures), ctx.options.maxStoredErrors, now],
    );
    if (failures.length) ctx.log.warn({ batchId, failures: details }, 'records could not be turned into sources');
    return { taken: rows.length, lastPosition: rows[rows.length - 1]!.position, processed: created.length, failed: failures.length, charged: charge.charged };
  });
}
