/**
 * Retention (issue 28 item 3): a workspace may keep its customer evidence for N days. The worker
 * deletes, a bounded slice at a time, the sources that occurred (occurred_at, the record's event_at)
 * more than N days ago with their records, and the processed records of that age that never became a
 * source. Off (NULL) by default.
 */
import type pg from 'pg';
import { deleteEvidence, type LifecycleDeps } from './delete';

/** Sources (or records) deleted per slice: one transaction, a fraction of a second. */
export const RETENTION_SLICE = 200;
export const RETENTION_MAX_DAYS = 36_500;
/** How long a deletion stays in `source_deletions`: every MCP server reads it within seconds; a day covers any pause. */
export const SOURCE_DELETIONS_KEPT_MS = 24 * 3600 * 1000;

export class RetentionError extends Error {
  override name = 'RetentionError';
}

/** The workspace's retention in days, or null when off. */
export async function getRetention(db: Pick<pg.Pool, 'query'>, workspaceId: string): Promise<number | null> {
  const { rows } = await db.query<{ retention_days: number | null }>('SELECT retention_days FROM workspaces WHERE id = $1', [workspaceId]);
  if (!rows[0]) throw new RetentionError(`workspace ${workspaceId} does not exist`);
  return rows[0].retention_days;
}

/** Sets (1 to 36,500 days) or turns off (null) the workspace's retention. */
export async function setRetention(db: Pick<pg.Pool, 'query'>, workspaceId: string, days: number | null): Promise<void> {
  if (days !== null && (!Number.isInteger(days) || days < 1 || days > RETENTION_MAX_DAYS)) {
    throw new RetentionError(`retention must be a whole number of days from 1 to ${RETENTION_MAX_DAYS}, or off`);
  }
  const { rowCount } = await db.query('UPDATE workspaces SET retention_days = $2 WHERE id = $1', [workspaceId, days]);
  if (!rowCount) throw new RetentionError(`workspace ${workspaceId} does not exist`);
}

/** Workspaces with retention on. */
export async function workspacesWithRetention(db: Pick<pg.Pool, 'query'>): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM workspaces WHERE retention_days IS NOT NULL ORDER BY id');
  return rows.map((r) => r.id);
}

export interface RetentionSlice {
  /** Sources deleted (with their records). */
  sources: number;
  /** Records without a source deleted. */
  records: number;
  /** A full slice was deleted: there may be more. */
  more: boolean;
}

/** Deletes one slice of what the workspace's retention says is too old; nothing when retention is off. */
export async function applyRetentionSlice(deps: LifecycleDeps, workspaceId: string, slice = RETENTION_SLICE): Promise<RetentionSlice> {
  const days = await getRetention(deps.pool, workspaceId).catch(() => null);
  if (days === null) return { sources: 0, records: 0, more: false };
  const cutoff = new Date(deps.clock.now() - days * 24 * 3600 * 1000);
  const { rows: sources } = await deps.pool.query<{ id: string }>(
    'SELECT id FROM sources WHERE workspace_id = $1 AND occurred_at < $2 ORDER BY occurred_at, id LIMIT $3',
    [workspaceId, cutoff, slice],
  );
  let records: Array<{ id: string }> = [];
  if (sources.length < slice) {
    ({ rows: records } = await deps.pool.query<{ id: string }>(
      `SELECT r.id FROM records r WHERE r.workspace_id = $1 AND r.event_at < $2 AND r.processed_at IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.record_id = r.id)
        ORDER BY r.event_at LIMIT $3`,
      [workspaceId, cutoff, slice - sources.length],
    ));
  }
  if (sources.length + records.length === 0) return { sources: 0, records: 0, more: false };
  const out = await deleteEvidence(deps, workspaceId, { sourceIds: sources.map((s) => s.id), recordIds: records.map((r) => r.id) });
  return { sources: out.sources.length, records: out.records.length - out.sources.filter((s) => s.recordId).length, more: sources.length + records.length === slice };
}

/** Forgets deletions older than `keptMs` (every MCP server has read them long since). */
export async function pruneSourceDeletions(db: Pick<pg.Pool, 'query'>, now: Date, keptMs = SOURCE_DELETIONS_KEPT_MS): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM source_deletions WHERE deleted_at < $1', [new Date(now.getTime() - keptMs)]);
  return rowCount ?? 0;
}
