import type pg from 'pg';

export interface SourceAttachment {
  position: number;
  type: string;
  filename: string | null;
  mimeType: string | null;
  /** PENDING, DOWNLOADING, COMPLETE, FAILED or NOT_DOWNLOADED. */
  status: string;
  size: number | null;
  error: string | null;
}

/** The attachments of the record a source came from, in order, with their download status (workspace-scoped). */
export async function attachmentsOfSource(db: Pick<pg.Pool, 'query'>, workspaceId: string, sourceId: string): Promise<SourceAttachment[]> {
  const { rows } = await db.query<{ position: number; type: string; filename: string | null; mime_type: string | null; status: string; size: string | null; error: string | null }>(
    `SELECT a.position, a.type, a.filename, COALESCE(a.stored_mime_type, a.mime_type) AS mime_type, a.status::text AS status,
            COALESCE(a.stored_size, a.declared_size)::text AS size, a.error
       FROM sources s JOIN attachments a ON a.record_id = s.record_id AND a.workspace_id = s.workspace_id
      WHERE s.workspace_id = $1 AND s.id = $2 ORDER BY a.position LIMIT 200`,
    [workspaceId, sourceId],
  );
  return rows.map((r) => ({ position: r.position, type: r.type, filename: r.filename, mimeType: r.mime_type, status: r.status, size: r.size === null ? null : Number(r.size), error: r.error }));
}

/** Where a downloaded attachment's bytes are, with what to name and type them by. */
export interface AttachmentFile {
  position: number;
  /** PENDING, DOWNLOADING, COMPLETE, FAILED or NOT_DOWNLOADED: only a COMPLETE one has a storageKey. */
  status: string;
  storageKey: string | null;
  filename: string | null;
  mimeType: string | null;
  size: number | null;
  sha1: string | null;
}

/**
 * One attachment of a source (or of the record it came from), by its position in the record's
 * `_attachments`, with its storage key once downloaded; undefined when the workspace has no such
 * source, record or position.
 */
export async function attachmentFile(
  db: Pick<pg.Pool, 'query'>, workspaceId: string, owner: { sourceId: string } | { recordId: string }, position: number,
): Promise<AttachmentFile | undefined> {
  const byRecord = 'recordId' in owner;
  const { rows } = await db.query<{ status: string; storage_key: string | null; filename: string | null; mime_type: string | null; size: string | null; sha1: string | null }>(
    `SELECT a.status::text AS status, a.storage_key, a.filename, COALESCE(a.stored_mime_type, a.mime_type) AS mime_type,
            COALESCE(a.stored_size, a.declared_size)::text AS size, a.sha1
       FROM attachments a
      WHERE a.workspace_id = $1 AND a.position = $3
        AND ${byRecord ? 'a.record_id = $2' : 'a.record_id = (SELECT s.record_id FROM sources s WHERE s.workspace_id = $1 AND s.id = $2)'}`,
    [workspaceId, byRecord ? owner.recordId : owner.sourceId, position],
  );
  const r = rows[0];
  if (!r) return undefined;
  return { position, status: r.status, storageKey: r.status === 'COMPLETE' ? r.storage_key : null, filename: r.filename, mimeType: r.mime_type, size: r.size === null ? null : Number(r.size), sha1: r.sha1 };
}
