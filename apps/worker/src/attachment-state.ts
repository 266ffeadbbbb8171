import { finalDownloadStatus, transitionDownloads, type DownloadStatus } from '@loupe/batches';
import { withTransaction } from '@loupe/db';
import type pg from 'pg';

export interface AttachmentRef {
  workspaceId: string;
  batchId: string;
  attachmentId: string;
}

export interface ClaimedAttachment {
  vendorUrl: string;
  declaredSize: number | null;
  mimeType: string | null;
  sha1: string | null;
  md5: string | null;
  attempts: number;
}

/**
 * PENDING (or DOWNLOADING again, after a crashed attempt) → DOWNLOADING, counting the attempt;
 * the batch's downloads move PENDING → IN_PROGRESS with the first one. Undefined when the
 * attachment is already final or not there.
 */
export async function claimAttachment(pool: pg.Pool, ref: AttachmentRef): Promise<ClaimedAttachment | undefined> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{
      vendor_url: string | null;
      declared_size: number | null;
      mime_type: string | null;
      sha1: string | null;
      md5: string | null;
      attempts: number;
    }>(
      `UPDATE attachments SET status = 'DOWNLOADING', attempts = attempts + 1, error = NULL, updated_at = now()
        WHERE id = $1 AND workspace_id = $2 AND batch_id = $3 AND status IN ('PENDING', 'DOWNLOADING')
        RETURNING vendor_url, declared_size, mime_type, sha1, md5, attempts`,
      [ref.attachmentId, ref.workspaceId, ref.batchId],
    );
    const row = rows[0];
    if (!row) return undefined;
    await transitionDownloads(client, ref.batchId, 'PENDING', 'IN_PROGRESS');
    return {
      vendorUrl: row.vendor_url ?? '',
      declaredSize: row.declared_size,
      mimeType: row.mime_type,
      sha1: row.sha1,
      md5: row.md5,
      attempts: row.attempts,
    };
  });
}

/** Keeps the reason of a failed attempt that will be retried. */
export async function noteAttemptError(pool: pg.Pool, ref: AttachmentRef, message: string): Promise<void> {
  await pool.query(`UPDATE attachments SET error = $2, updated_at = now() WHERE id = $1 AND status = 'DOWNLOADING'`, [
    ref.attachmentId,
    message,
  ]);
}

export type AttachmentOutcome =
  | { status: 'COMPLETE'; storageKey: string; storedSize: number; storedMimeType: string | null }
  | { status: 'FAILED'; error: string };

/**
 * Moves the attachment to its final status and, in the same transaction and only if it moved,
 * counts it on the batch; the download that brings complete + failed to the total sets the
 * batch's final download status. Returns false when the attachment was already final, so a
 * retry or a duplicate job never counts twice.
 */
export async function finishAttachment(pool: pg.Pool, ref: AttachmentRef, outcome: AttachmentOutcome): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const done = outcome.status === 'COMPLETE' ? outcome : undefined;
    const { rowCount } = await client.query(
      `UPDATE attachments
          SET status = $2::attachment_status, storage_key = $3, stored_size = $4, stored_mime_type = $5, error = $6, updated_at = now()
        WHERE id = $1 AND status IN ('PENDING', 'DOWNLOADING')`,
      [
        ref.attachmentId,
        outcome.status,
        done?.storageKey ?? null,
        done?.storedSize ?? null,
        done?.storedMimeType ?? null,
        outcome.status === 'FAILED' ? outcome.error : null,
      ],
    );
    if (rowCount !== 1) return false;
    const { rows } = await client.query<{ total: number; complete: number; failed: number; status: DownloadStatus | null }>(
      `UPDATE batches
          SET attachment_download_complete = attachment_download_complete + $2,
              attachment_download_failed = attachment_download_failed + $3,
              updated_at = now()
        WHERE id = $1
        RETURNING attachment_download_total AS total, attachment_download_complete AS complete,
                  attachment_download_failed AS failed, attachment_download_status AS status`,
      [ref.batchId, outcome.status === 'COMPLETE' ? 1 : 0, outcome.status === 'FAILED' ? 1 : 0],
    );
    const batch = rows[0];
    const final = batch && finalDownloadStatus(batch.total, batch.complete, batch.failed);
    if (batch?.status && final && (batch.status === 'PENDING' || batch.status === 'IN_PROGRESS')) {
      await transitionDownloads(client, ref.batchId, batch.status, final);
    }
    return true;
  });
}
