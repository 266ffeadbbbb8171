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
