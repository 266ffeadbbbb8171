import { failErasure } from '@loupe/erasure';
import { QUEUES, payloadSchemas } from '@loupe/jobs';
import { finishAttachment } from './attachment-state';
import type { WorkerContext } from './context';
import { failBatch } from './process-batch';

export interface DeadJob {
  sourceName: string | null;
  sourceRetryCount: number | null;
  sourceOutput: object | null;
  data: unknown;
}

function lastError(job: DeadJob): string {
  const output = job.sourceOutput as { message?: unknown; value?: { message?: unknown } } | null;
  const message = output?.message ?? output?.value?.message;
  return typeof message === 'string' ? message : 'the job ended without a recorded error (expired, lost its worker, or shut down)';
}

/**
 * A job that used up its retries without reaching its own failure handling (its worker died or
 * it expired on the last attempt): end what it was about, so nothing waits forever.
 */
export async function handleDeadJob(ctx: WorkerContext, job: DeadJob): Promise<string> {
  const attempts = (job.sourceRetryCount ?? 0) + 1;
  if (job.sourceName === QUEUES.downloadAttachment) {
    const ref = payloadSchemas[QUEUES.downloadAttachment].parse(job.data);
    const changed = await finishAttachment(ctx.pool, ref, { status: 'FAILED', error: `gave up after ${attempts} attempts: ${lastError(job)}` });
    return changed ? 'attachment-failed' : 'attachment-already-final';
  }
  if (job.sourceName === QUEUES.processBatch) {
    const ref = payloadSchemas[QUEUES.processBatch].parse(job.data);
    ctx.log.error({ batchId: ref.batchId, attempts, lastError: lastError(job) }, 'batch job dead-lettered; failing the batch');
    const changed = await failBatch(ctx, ref, attempts);
    return changed ? 'batch-failed' : 'batch-already-final';
  }
  if (job.sourceName === QUEUES.erasePerson) {
    const ref = payloadSchemas[QUEUES.erasePerson].parse(job.data);
    // The message is ours or the database's (ids and hashes, never the person): see libs/erasure.
    await failErasure(ctx.pool, ref.workspaceId, ref.erasureId, `gave up after ${attempts} attempts: ${lastError(job)}`, new Date(ctx.clock.now()));
    return 'erasure-failed';
  }
  ctx.log.warn({ sourceName: job.sourceName }, 'dead-lettered job from a queue the worker does not own; kept as completed for inspection');
  return 'ignored';
}
