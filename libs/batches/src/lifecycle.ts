import type pg from 'pg';

export type BatchStatus = 'LANDING' | 'LANDED' | 'PROCESSING' | 'COMPLETE' | 'FAILED';
export type DownloadStatus = 'PENDING' | 'IN_PROGRESS' | 'COMPLETE' | 'PARTIAL_FAILURE' | 'FAILED';

/** Every allowed move of a batch. COMPLETE and FAILED are final. */
export const BATCH_TRANSITIONS: Record<BatchStatus, readonly BatchStatus[]> = {
  LANDING: ['LANDED', 'FAILED'],
  LANDED: ['PROCESSING', 'FAILED'],
  PROCESSING: ['COMPLETE', 'FAILED'],
  COMPLETE: [],
  FAILED: [],
};

/** Every allowed move of a batch's attachment downloads. The last three are final. */
export const DOWNLOAD_TRANSITIONS: Record<DownloadStatus, readonly DownloadStatus[]> = {
  PENDING: ['IN_PROGRESS', 'COMPLETE', 'PARTIAL_FAILURE', 'FAILED'],
  IN_PROGRESS: ['COMPLETE', 'PARTIAL_FAILURE', 'FAILED'],
  COMPLETE: [],
  PARTIAL_FAILURE: [],
  FAILED: [],
};

export class TransitionError extends Error {
  override name = 'TransitionError';
}

export function assertBatchTransition(from: BatchStatus, to: BatchStatus): void {
  if (!BATCH_TRANSITIONS[from].includes(to)) throw new TransitionError(`A batch cannot move from ${from} to ${to}`);
}

export function assertDownloadTransition(from: DownloadStatus, to: DownloadStatus): void {
  if (!DOWNLOAD_TRANSITIONS[from].includes(to)) throw new TransitionError(`Attachment downloads cannot move from ${from} to ${to}`);
}

type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * Moves a batch from `from` to `to` with a conditional update: of two workers
 * trying the same move, exactly one gets `true`.
 */
export async function transitionBatch(
  db: Queryable,
  batchId: string,
  from: BatchStatus,
  to: BatchStatus,
  extra: { errors?: unknown[] } = {},
): Promise<boolean> {
  assertBatchTransition(from, to);
  const { rowCount } = await db.query(
    `UPDATE batches SET status = $3::batch_status, updated_at = now(),
            completed_at = CASE WHEN $3::batch_status IN ('COMPLETE', 'FAILED') THEN now() ELSE completed_at END,
            errors = CASE WHEN $4::jsonb IS NULL THEN errors ELSE (errors || $4::jsonb) END
      WHERE id = $1 AND status = $2::batch_status`,
    [batchId, from, to, extra.errors ? JSON.stringify(extra.errors) : null],
  );
  return rowCount === 1;
}

export async function transitionDownloads(db: Queryable, batchId: string, from: DownloadStatus, to: DownloadStatus): Promise<boolean> {
  assertDownloadTransition(from, to);
  const { rowCount } = await db.query(
    `UPDATE batches SET attachment_download_status = $3::download_status, updated_at = now()
      WHERE id = $1 AND attachment_download_status = $2::download_status`,
    [batchId, from, to],
  );
  return rowCount === 1;
}

/** The final download status once nothing is pending: all good, some failed, or all failed. */
export function finalDownloadStatus(total: number, complete: number, failed: number): DownloadStatus | undefined {
  if (complete + failed < total) return undefined;
  if (failed === 0) return 'COMPLETE';
  return complete === 0 ? 'FAILED' : 'PARTIAL_FAILURE';
}
