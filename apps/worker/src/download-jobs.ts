import { createHash } from 'node:crypto';
import { QUEUES, payloadSchemas, transactionDb, type Boss } from '@loupe/jobs';
import type pg from 'pg';

/** A UUID (version 5 layout) derived from `name`: the same attachment always gets the same job id. */
export function jobIdFor(name: string): string {
  const bytes = createHash('sha1').update(`loupe:${name}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * One `attachment.download` job per PENDING attachment of the batch, in the caller's transaction.
 * The job id is derived from the attachment id and pg-boss skips an id it already has, so
 * running this again (a retried or duplicate batch job) enqueues nothing twice.
 */
export async function enqueueDownloads(client: pg.PoolClient, boss: Boss, workspaceId: string, batchId: string): Promise<number> {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM attachments
      WHERE batch_id = $1 AND workspace_id = $2 AND status = 'PENDING' AND vendor_url IS NOT NULL
      ORDER BY record_id, position`,
    [batchId, workspaceId],
  );
  if (rows.length === 0) return 0;
  const jobs = rows.map((r) => ({
    id: jobIdFor(`${QUEUES.downloadAttachment}:${r.id}`),
    data: payloadSchemas[QUEUES.downloadAttachment].parse({ workspaceId, batchId, attachmentId: r.id }),
  }));
  const inserted = await boss.insert(QUEUES.downloadAttachment, jobs, { db: transactionDb(client), returnId: true });
  return inserted?.length ?? 0;
}
