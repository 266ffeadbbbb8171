import type { BatchView } from '@loupe/records';
import type pg from 'pg';

interface BatchRow {
  id: string;
  status: BatchView['status'];
  created_at: Date;
  accepted_count: number;
  rejected_count: number;
  duplicate_count: number;
  total_error_count: number;
  errors: BatchView['errors'];
  source: string;
  type: string;
  format: string | null;
  credits_charged: number;
  attachment_download_total: number;
  attachment_download_complete: number;
  attachment_download_failed: number;
  attachment_download_status: BatchView['attachmentDownloadStatus'] | null;
  deleted_count: number;
}

const COLUMNS = `id, status, created_at, accepted_count, rejected_count, duplicate_count, total_error_count, errors,
  source, type, format, credits_charged, attachment_download_total, attachment_download_complete,
  attachment_download_failed, attachment_download_status, deleted_count`;

/** A batch as the API shows it (spec 2.7); download fields only when the batch has downloads. */
export function toBatchView(row: BatchRow): BatchView {
  const view: BatchView = {
    batchId: row.id,
    status: row.status,
    createdAt: row.created_at.getTime(),
    acceptedCount: row.accepted_count,
    rejectedCount: row.rejected_count,
    duplicateCount: row.duplicate_count,
    totalErrorCount: row.total_error_count,
    errors: row.errors.slice(0, 20),
    source: row.source,
    type: row.type,
    billing: { totalCreditsCharged: row.credits_charged },
  };
  if (row.format) view.format = row.format as NonNullable<BatchView['format']>;
  if (row.attachment_download_status) {
    view.attachmentDownloadTotal = row.attachment_download_total;
    view.attachmentDownloadComplete = row.attachment_download_complete;
    view.attachmentDownloadFailed = row.attachment_download_failed;
    view.attachmentDownloadStatus = row.attachment_download_status;
  }
  // Records deleted since: the counts above stay as received and processed (docs/ingest/export-and-deletion.md).
  if (row.deleted_count > 0) view.deletedCount = row.deleted_count;
  return view;
}

export async function getBatch(pool: pg.Pool, workspaceId: string, batchId: string): Promise<BatchView | undefined> {
  const { rows } = await pool.query<BatchRow>(`SELECT ${COLUMNS} FROM batches WHERE workspace_id = $1 AND id = $2`, [workspaceId, batchId]);
  return rows[0] && toBatchView(rows[0]);
}

export class CursorError extends Error {
  override name = 'CursorError';
}

export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.getTime()}.${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^(\d{1,16})\.(bat_[0-9a-z]{26})$/.exec(text);
  if (!m) throw new CursorError('cursor is not a nextCursor returned by this API');
  const createdAt = new Date(Number(m[1]));
  // A well-formed cursor can still carry a time past the Date range (8.64e15 ms), which PostgreSQL refuses.
  if (Number.isNaN(createdAt.getTime())) throw new CursorError('cursor is not a nextCursor returned by this API');
  return { createdAt, id: m[2]! };
}

/** One page, newest first; keyset pagination on (created_at, id), so new batches never shift later pages. */
export async function listBatches(
  pool: pg.Pool,
  workspaceId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ batches: BatchView[]; nextCursor?: string }> {
  const after = page.cursor ? decodeCursor(page.cursor) : undefined;
  const { rows } = await pool.query<BatchRow>(
    `SELECT ${COLUMNS} FROM batches
      WHERE workspace_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3))
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [workspaceId, after?.createdAt ?? null, after?.id ?? null, page.limit + 1],
  );
  const more = rows.length > page.limit;
  const pageRows = more ? rows.slice(0, page.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  const result: { batches: BatchView[]; nextCursor?: string } = { batches: pageRows.map(toBatchView) };
  if (more && last) result.nextCursor = encodeCursor(last.created_at, last.id);
  return result;
}
