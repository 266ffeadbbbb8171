import { finalDownloadStatus, transitionBatch, transitionDownloads, type BatchStatus, type DownloadStatus } from '@loupe/batches';
import { withTransaction } from '@loupe/db';
import { QUEUES, enqueue } from '@loupe/jobs';
import { slicesOf } from '@loupe/http';
import type pg from 'pg';
import { isLastAttempt, type Attempt, type WorkerContext } from './context';
import { enqueueDownloads } from './download-jobs';
import { processChunk } from './record-chunk';

export interface BatchJob {
  workspaceId: string;
  batchId: string;
}

export type BatchOutcome = 'missing' | 'already-final' | 'left-to-other-worker' | 'COMPLETE' | 'FAILED';

async function batchStatus(db: Pick<pg.Pool, 'query'>, job: BatchJob): Promise<BatchStatus | undefined> {
  const { rows } = await db.query<{ status: BatchStatus }>('SELECT status FROM batches WHERE id = $1 AND workspace_id = $2', [
    job.batchId,
    job.workspaceId,
  ]);
  return rows[0]?.status;
}

/** LANDED → PROCESSING (or already PROCESSING: a previous attempt died), with the downloads enqueued. */
async function begin(ctx: WorkerContext, job: BatchJob, status: BatchStatus): Promise<void> {
  await withTransaction(ctx.pool, async (client) => {
    if (status === 'LANDED') await transitionBatch(client, job.batchId, 'LANDED', 'PROCESSING');
    const enqueued = await enqueueDownloads(client, ctx.boss, job.workspaceId, job.batchId);
    if (enqueued) ctx.log.info({ batchId: job.batchId, enqueued }, 'attachment downloads enqueued');
  });
}

/**
 * When no record is left unprocessed: PROCESSING → COMPLETE, or FAILED when the batch had records
 * and not one of them could be turned into a source. Records still held by another attempt (a
 * duplicate or stalled job) are left to it, but a delayed job to look again is committed first:
 * if that attempt then fails and rolls back, no batch is left PROCESSING without a job to finish it.
 */
async function finish(ctx: WorkerContext, job: BatchJob): Promise<BatchOutcome> {
  return withTransaction(ctx.pool, async (client) => {
    const { rows } = await client.query<{ pending: number; total: number; processed: number }>(
      `SELECT count(*) FILTER (WHERE r.processed_at IS NULL)::int AS pending, count(*)::int AS total,
              (SELECT processed_count FROM batches WHERE id = $1) AS processed
         FROM records r WHERE r.batch_id = $1`,
      [job.batchId],
    );
    const { pending, total, processed } = rows[0]!;
    if (pending > 0) {
      await enqueue(ctx.boss, QUEUES.processBatch, job, { client, startAfter: ctx.options.lockedRecheckSeconds });
      return 'left-to-other-worker';
    }
    const to = total > 0 && processed === 0 ? 'FAILED' : 'COMPLETE';
    const moved = await transitionBatch(client, job.batchId, 'PROCESSING', to);
    return moved ? to : 'already-final';
  });
}

/**
 * Ends a batch as FAILED, saying where processing stopped; the cause goes to the log, not into
 * `errors`, which the API returns. A batch failed before it began (still LANDED) never had its
 * downloads enqueued: its pending attachments fail with it, so the download status settles too.
 */
export async function failBatch(ctx: WorkerContext, job: BatchJob, attempts: number): Promise<boolean> {
  return withTransaction(ctx.pool, async (client) => {
    const { rows } = await client.query<{ first: number | null; pending: number; total: number }>(
      `SELECT min(position) FILTER (WHERE processed_at IS NULL) AS first,
              count(*) FILTER (WHERE processed_at IS NULL)::int AS pending, count(*)::int AS total
         FROM records WHERE batch_id = $1`,
      [job.batchId],
    );
    const { first, pending, total } = rows[0]!;
    const error = {
      index: first ?? 0,
      code: 'PROCESSING_FAILED',
      message: `processing stopped after ${attempts} attempt${attempts === 1 ? '' : 's'} with ${pending} of ${total} records unprocessed, from record ${first ?? 0}`,
    };
    for (const from of ['PROCESSING', 'LANDED'] as const) {
      if (await transitionBatch(client, job.batchId, from, 'FAILED', { errors: [error] })) {
        await client.query('UPDATE batches SET total_error_count = total_error_count + 1 WHERE id = $1', [job.batchId]);
        if (from === 'LANDED') await failPendingDownloads(client, job);
        return true;
      }
    }
    return false;
  });
}

async function failPendingDownloads(client: pg.PoolClient, job: BatchJob): Promise<void> {
  const { rowCount } = await client.query(
    `UPDATE attachments SET status = 'FAILED', error = 'not downloaded: the batch failed before processing began', updated_at = now()
      WHERE batch_id = $1 AND workspace_id = $2 AND status = 'PENDING'`,
    [job.batchId, job.workspaceId],
  );
  if (!rowCount) return;
  const { rows } = await client.query<{ total: number; complete: number; failed: number; status: DownloadStatus | null }>(
    `UPDATE batches SET attachment_download_failed = attachment_download_failed + $2, updated_at = now()
      WHERE id = $1
      RETURNING attachment_download_total AS total, attachment_download_complete AS complete,
                attachment_download_failed AS failed, attachment_download_status AS status`,
    [job.batchId, rowCount],
  );
  const batch = rows[0]!;
  const final = finalDownloadStatus(batch.total, batch.complete, batch.failed);
  if (final && (batch.status === 'PENDING' || batch.status === 'IN_PROGRESS')) await transitionDownloads(client, job.batchId, batch.status, final);
}

/** The `batch.process` job: safe to run twice, at once, or after a crash at any point. */
export async function processBatch(ctx: WorkerContext, job: BatchJob, attempt: Attempt): Promise<BatchOutcome> {
  const log = ctx.log.child({ batchId: job.batchId, workspaceId: job.workspaceId, attempt: attempt.retryCount + 1 });
  try {
    const status = await batchStatus(ctx.pool, job);
    if (!status) {
      log.warn('batch.process for a batch that does not exist; nothing to do');
      return 'missing';
    }
    if (status === 'COMPLETE' || status === 'FAILED') return 'already-final';
    if (status === 'LANDING') throw new Error(`batch ${job.batchId} is still LANDING`);
    await begin(ctx, job, status);
    let totals = { processed: 0, failed: 0, charged: 0 };
    let after = -1;
    const nextSlice = slicesOf(ctx.yieldToRequests);
    for (;;) {
      if (attempt.signal.aborted || ctx.shutdown.aborted) throw new Error('stopped before the batch was finished; it resumes on retry');
      await nextSlice();
      const chunk = await processChunk(ctx, job.workspaceId, job.batchId, after);
      if (chunk.taken === 0) break;
      after = chunk.lastPosition;
      // New sources get their vector for semantic search in the background (one queued job per workspace).
      if (chunk.processed > 0) await enqueue(ctx.boss, QUEUES.embedSources, { workspaceId: job.workspaceId });
      totals = { processed: totals.processed + chunk.processed, failed: totals.failed + chunk.failed, charged: totals.charged + chunk.charged };
    }
    const outcome = await finish(ctx, job);
    log.info({ outcome, ...totals }, 'batch processed');
    return outcome;
  } catch (error) {
    if (isLastAttempt(attempt)) {
      const failed = await failBatch(ctx, job, attempt.retryCount + 1).catch(() => false);
      log.error({ err: error, failed }, 'batch processing failed on its last attempt');
    } else {
      log.warn({ err: error }, 'batch processing failed; pg-boss will retry');
    }
    throw error;
  }
}
