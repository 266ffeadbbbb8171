import { transitionBatch, type BatchStatus } from '@loupe/batches';
import { withTransaction } from '@loupe/db';
import type pg from 'pg';
import { errorMessage, isLastAttempt, type Attempt, type WorkerContext } from './context';
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
 * and not one of them could be turned into a source. Records still held by another worker mean
 * that worker finishes the batch.
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
    if (pending > 0) return 'left-to-other-worker';
    const to = total > 0 && processed === 0 ? 'FAILED' : 'COMPLETE';
    const moved = await transitionBatch(client, job.batchId, 'PROCESSING', to);
    return moved ? to : 'already-final';
  });
}

/** Ends a batch as FAILED with the reason, where processing stopped, in `errors`. */
export async function failBatch(ctx: WorkerContext, job: BatchJob, reason: string): Promise<boolean> {
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
      message: `processing stopped with ${pending} of ${total} records unprocessed, from record ${first ?? 0}: ${reason}`.slice(0, 2048),
    };
    for (const from of ['PROCESSING', 'LANDED'] as const) {
      if (await transitionBatch(client, job.batchId, from, 'FAILED', { errors: [error] })) {
        await client.query('UPDATE batches SET total_error_count = total_error_count + 1 WHERE id = $1', [job.batchId]);
        return true;
      }
    }
    return false;
  });
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
    for (;;) {
      if (attempt.signal.aborted || ctx.shutdown.aborted) throw new Error('stopped before the batch was finished; it resumes on retry');
      const chunk = await processChunk(ctx, job.workspaceId, job.batchId);
      if (chunk.taken === 0) break;
      totals = { processed: totals.processed + chunk.processed, failed: totals.failed + chunk.failed, charged: totals.charged + chunk.charged };
    }
    const outcome = await finish(ctx, job);
    log.info({ outcome, ...totals }, 'batch processed');
    return outcome;
  } catch (error) {
    if (isLastAttempt(attempt)) {
      const failed = await failBatch(ctx, job, `after ${attempt.retryCount + 1} attempts: ${errorMessage(error)}`).catch(() => false);
      log.error({ err: error, failed }, 'batch processing failed on its last attempt');
    } else {
      log.warn({ err: error }, 'batch processing failed; pg-boss will retry');
    }
    throw error;
  }
}
