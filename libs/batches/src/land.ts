import { newId, withTransaction } from '@loupe/db';
import { QUEUES, enqueue, type Boss } from '@loupe/jobs';
import { mayHoldUnstorable, type AcceptedRecord, type RecordError } from '@loupe/records';
import type pg from 'pg';
import { transitionBatch } from './lifecycle';

export const LANDING_STATEMENT_TIMEOUT_MS = 30_000;

export interface LandingInput {
  workspaceId: string;
  apiKeyId: string | null;
  /** The connection whose sync landed it (libs/connectors); null for the API. */
  connectionId?: string | null;
  productId: string;
  type: string;
  source: string;
  format: string | undefined;
  accepted: AcceptedRecord[];
  rejectedCount: number;
  totalErrorCount: number;
  /** The first errors, as reported. */
  errors: RecordError[];
  now: number;
}

export interface Landed {
  batchId: string;
  insertedCount: number;
  duplicateCount: number;
  attachmentDownloadTotal: number;
}

// One JSON parameter carries every record, `data` spliced in as the raw text that was sent. A `data`
// that may hold \u0000 or a lone surrogate goes in a text array instead, cast to json on its own:
// json_to_recordset de-escapes every string it reads and refuses those, while json keeps them as written.
// (Only then: an array literal escapes its text, ~100 ms for 4 MB, where the splice costs ~5 ms.)
// Rows are inserted in dedup-key order: two requests holding the same records in another order then
// wait on each other's first common key instead of deadlocking.
function recordsParameters(ids: string[], accepted: AcceptedRecord[]): { records: string; unparsedData: string[] } {
  const unparsedData: string[] = [];
  const parts = accepted.map((a, i) => {
    const r = a.record;
    const aside = mayHoldUnstorable(a.rawData);
    if (aside) unparsedData.push(a.rawData);
    const head = JSON.stringify({
      id: ids[i],
      position: a.index,
      dedup_key: a.dedupKey,
      type: r._type,
      nature: r._nature,
      project_ids: r._project_ids,
      event_at: a.eventAt,
      vendor_ids: r._vendor_ids,
      thread_id: r._thread_id ?? null,
      participants: r._participants ?? null,
      tags: r._tags ?? [],
      pii: r._pii ?? null,
      aside: aside ? unparsedData.length : null,
    });
    return aside ? head : `${head.slice(0, -1)},"data":${a.rawData}}`;
  });
  return { records: `[${parts.join(',')}]`, unparsedData };
}

const INSERT_RECORDS = `
  INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids,
                       event_at, vendor_ids, thread_id, participants, tags, pii, data, received_at)
  SELECT r.id, $1, $2, r.position, r.dedup_key, r.type, r.nature, $3, r.project_ids,
         r.event_at, r.vendor_ids, r.thread_id, r.participants, r.tags, r.pii, CASE WHEN r.aside IS NULL THEN r.data ELSE ($6::text[])[r.aside]::json END, $5
    FROM json_to_recordset($4::json) AS r(id text, position int, dedup_key text, type text, nature text,
         project_ids text[], event_at timestamptz, vendor_ids jsonb, thread_id text, participants jsonb,
         tags text[], pii jsonb, data json, aside int)
   ORDER BY r.dedup_key COLLATE "C"
  ON CONFLICT (workspace_id, dedup_key) DO NOTHING
  RETURNING position`;

const INSERT_ATTACHMENTS = `
  INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, filename, declared_size, mime_type,
                           sha1, md5, vendor_url, upload_intent_id, status)
  SELECT a.id, $1, $2, a.record_id, a.position, a.type, a.filename, a.size, a.mime_type,
         a.sha1, a.md5, a.vendor_url, a.upload_intent_id, a.status::attachment_status
    FROM jsonb_to_recordset($3::jsonb) AS a(id text, record_id text, position int, type text, filename text,
         size bigint, mime_type text, sha1 text, md5 text, vendor_url text, upload_intent_id text, status text)`;

// The first key of the two-key advisory lock that orders a workspace's landings and its suppressions
// (libs/erasure): every landing holds it shared from its first statement to its commit, and making a
// suppression holds it exclusively. See `withLanding`.
const LANDING_LOCK_NAMESPACE = 72_707_303;

/**
 * Takes the workspace's landing lock until the caller's transaction ends: `shared` by whatever writes
 * records, signals or sources that a suppression must refuse, `exclusive` by whoever makes a suppression.
 * An exclusive holder waits for the shared ones in flight to commit, and new shared ones wait for it.
 * Only meaningful inside a transaction (an advisory transaction lock ends with it).
 */
export async function lockLandings(db: Pick<pg.Pool, 'query'>, workspaceId: string, mode: 'shared' | 'exclusive'): Promise<void> {
  await db.query(`SELECT ${mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock'}($1, hashtext($2))`, [LANDING_LOCK_NAMESPACE, workspaceId]);
}

/**
 * Runs `fn` in a landing transaction of the workspace: the landing's statement timeout, and the landing
 * lock held shared from the first statement to the commit. Every statement `fn` runs therefore sees each
 * suppression committed before this landing began, and a suppression made while it runs waits for its
 * commit, so the erasure that follows (queued with the suppression) finds what it landed. Checking the
 * suppressions inside `fn`, before the inserts, leaves no moment when a record can slip in unchecked.
 * (A `SELECT … FOR SHARE` of the suppressions could not do this: it would not see one being inserted.)
 */
export async function withLanding<T>(pool: pg.Pool, workspaceId: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (client) => {
    // A landing takes well under a second; a stuck one must end long before its Idempotency-Key
    // claim (2 minutes) can be taken over by a retry. The lock is tried in the same statement (no
    // round trip more than the timeout alone); only while a suppression is being made is it waited
    // for, then under the timeout.
    const { rows } = await client.query<{ locked: boolean }>(
      `SELECT set_config('statement_timeout', '${LANDING_STATEMENT_TIMEOUT_MS}', true), pg_try_advisory_xact_lock_shared($1, hashtext($2)) AS locked`,
      [LANDING_LOCK_NAMESPACE, workspaceId],
    );
    if (!rows[0]!.locked) await lockLandings(client, workspaceId, 'shared');
    return fn(client);
  });
}

/**
 * Stores a batch, its accepted records (each dedup key once per workspace), their
 * attachments and the job that will process them in one transaction. `finalize`
 * runs inside the same transaction (the idempotency record), so a crash leaves
 * all of it or none.
 */
export async function landBatch(
  pool: pg.Pool,
  boss: Boss,
  input: LandingInput,
  finalize?: (client: pg.PoolClient, landed: Landed) => Promise<void>,
): Promise<Landed> {
  return withLanding(pool, input.workspaceId, async (client) => {
    const landed = await landBatchIn(client, boss, input);
    await finalize?.(client, landed);
    return landed;
  });
}

/**
 * `landBatch`'s writes, in the caller's landing transaction (`withLanding`): for a caller that must
 * read something under the landing lock first (the suppressions) and decide what to land.
 */
export async function landBatchIn(client: pg.PoolClient, boss: Boss, input: LandingInput): Promise<Landed> {
  const batchId = newId('bat', input.now);
  const recordIds = input.accepted.map(() => newId('rec', input.now));
  const createdAt = new Date(input.now);
  await client.query(
    `INSERT INTO batches (id, workspace_id, api_key_id, product_id, source, type, format, status,
                          accepted_count, rejected_count, total_error_count, errors, created_at, updated_at, connection_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'LANDING', $8, $9, $10, $11, $12, $12, $13)`,
    [batchId, input.workspaceId, input.apiKeyId, input.productId, input.source, input.type, input.format ?? null,
      input.accepted.length, input.rejectedCount, input.totalErrorCount, JSON.stringify(input.errors), createdAt, input.connectionId ?? null],
  );
  const { records, unparsedData } = recordsParameters(recordIds, input.accepted);
  const { rows } = await client.query<{ position: number }>(INSERT_RECORDS, [
    input.workspaceId, batchId, input.productId, records, createdAt, unparsedData,
  ]);
  const inserted = new Set(rows.map((r) => r.position));
  const attachments: Record<string, unknown>[] = [];
  input.accepted.forEach((a, i) => {
    if (!inserted.has(a.index)) return;
    a.record._attachments?.forEach((att, position) => {
      attachments.push({
        id: newId('att', input.now),
        record_id: recordIds[i],
        position,
        type: att.type,
        filename: att.filename ?? null,
        size: att.size ?? null,
        mime_type: att.mime_type ?? null,
        sha1: att.sha1 ?? null,
        md5: att.md5 ?? null,
        vendor_url: att.vendor_url ?? null,
        upload_intent_id: att.upload_intent_id ?? null,
        status: att.vendor_url ? 'PENDING' : 'NOT_DOWNLOADED',
      });
    });
  });
  if (attachments.length) {
    await client.query(INSERT_ATTACHMENTS, [input.workspaceId, batchId, JSON.stringify(attachments)]);
  }
  const downloads = attachments.filter((a) => a.vendor_url).length;
  const landed: Landed = {
    batchId,
    insertedCount: inserted.size,
    duplicateCount: input.accepted.length - inserted.size,
    attachmentDownloadTotal: downloads,
  };
  await client.query(
    `UPDATE batches SET duplicate_count = $2, attachment_download_total = $3,
            attachment_download_status = CASE WHEN $3 > 0 THEN 'PENDING'::download_status END
      WHERE id = $1`,
    [batchId, landed.duplicateCount, downloads],
  );
  await transitionBatch(client, batchId, 'LANDING', 'LANDED');
  await enqueue(boss, QUEUES.processBatch, { workspaceId: input.workspaceId, batchId }, { client });
  return landed;
}
