import { newId } from '@loupe/db';
import type { ConnectionKind, ConnectionView } from '@loupe/records';
import type pg from 'pg';
import { sealCredentials, type Keyring } from './envelope';

type Queryable = Pick<pg.Pool, 'query'>;

export const CONNECTION_STATUSES = ['active', 'paused', 'failing'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** The columns of a view, and the ones the engine needs; the credential columns are read only by `sealedCredentials`. */
const VIEW_COLUMNS = `id, workspace_id, kind, product_id, project_id, base_url, settings, status, sync_interval_seconds, cursor, credentials_version,
  last_synced_at, last_success_at, last_error, last_error_at, records_count, duplicates_count, rejected_count, companies_count, people_count, created_at, updated_at`;

export interface ConnectionRow {
  id: string; workspace_id: string; kind: string; product_id: string; project_id: string; base_url: string; settings: Record<string, unknown>;
  status: ConnectionStatus; sync_interval_seconds: number; cursor: unknown; credentials_version: number;
  last_synced_at: Date | null; last_success_at: Date | null; last_error: string | null; last_error_at: Date | null;
  records_count: number; duplicates_count: number; rejected_count: number; companies_count: number; people_count: number; created_at: Date; updated_at: Date;
}

const at = (d: Date | null) => (d ? d.toISOString() : null);

/** A connection as every API and page shows it: never its credentials, sealed or not. */
export function connectionView(r: ConnectionRow): ConnectionView {
  return {
    id: r.id, kind: r.kind as ConnectionKind, product_id: r.product_id, project_id: r.project_id, base_url: r.base_url, settings: r.settings ?? {}, status: r.status,
    sync_interval_minutes: Math.round(r.sync_interval_seconds / 60), last_synced_at: at(r.last_synced_at), last_success_at: at(r.last_success_at),
    last_error: r.last_error, last_error_at: at(r.last_error_at), records: r.records_count, duplicates: r.duplicates_count, rejected: r.rejected_count,
    companies: r.companies_count, people: r.people_count, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
  };
}

export interface NewConnection {
  kind: string;
  productId: string;
  projectId: string;
  baseUrl: string;
  settings: Record<string, unknown>;
  credentials: unknown;
  syncIntervalSeconds: number;
}

export async function insertConnection(db: Queryable, keyring: Keyring, workspaceId: string, input: NewConnection, now: Date): Promise<ConnectionRow> {
  const sealed = sealCredentials(keyring, input.credentials);
  const { rows } = await db.query<ConnectionRow>(
    `INSERT INTO connections (id, workspace_id, kind, product_id, project_id, base_url, settings, credentials_ciphertext, credentials_data_key,
                              sync_interval_seconds, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $11) RETURNING ${VIEW_COLUMNS}`,
    [newId('conn', now.getTime()), workspaceId, input.kind, input.productId, input.projectId, input.baseUrl, JSON.stringify(input.settings),
      sealed.ciphertext, sealed.dataKey, input.syncIntervalSeconds, now],
  );
  return rows[0]!;
}

export async function findConnection(db: Queryable, workspaceId: string, id: string): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(`SELECT ${VIEW_COLUMNS} FROM connections WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return rows[0];
}

/** For the worker, which has only the id of the job: the row without its credentials. */
export async function connectionById(db: Queryable, id: string): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(`SELECT ${VIEW_COLUMNS} FROM connections WHERE id = $1`, [id]);
  return rows[0];
}

/** The workspace's connections, newest first (a workspace has a handful: no paging). */
export async function listConnectionRows(db: Queryable, workspaceId: string): Promise<ConnectionRow[]> {
  const { rows } = await db.query<ConnectionRow>(`SELECT ${VIEW_COLUMNS} FROM connections WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT 500`, [workspaceId]);
  return rows;
}

/** For the sync alone: the sealed credentials, never part of a view. */
export async function sealedCredentials(db: Queryable, connectionId: string): Promise<{ ciphertext: string; dataKey: string; version: number } | undefined> {
  const { rows } = await db.query<{ credentials_ciphertext: string; credentials_data_key: string; credentials_version: number }>(
    'SELECT credentials_ciphertext, credentials_data_key, credentials_version FROM connections WHERE id = $1', [connectionId]);
  const r = rows[0];
  return r && { ciphertext: r.credentials_ciphertext, dataKey: r.credentials_data_key, version: r.credentials_version };
}

export interface ConnectionChange {
  settings?: Record<string, unknown>;
  baseUrl?: string;
  syncIntervalSeconds?: number;
  /** New credentials: sealed under a new data key, and a failing connection is active again. */
  credentials?: unknown;
}

export async function updateConnectionRow(db: Queryable, keyring: Keyring, workspaceId: string, id: string, change: ConnectionChange, now: Date): Promise<ConnectionRow | undefined> {
  const sealed = change.credentials === undefined ? undefined : sealCredentials(keyring, change.credentials);
  const { rows } = await db.query<ConnectionRow>(
    `UPDATE connections SET
       settings = COALESCE($3::jsonb, settings),
       base_url = COALESCE($4, base_url),
       sync_interval_seconds = COALESCE($5, sync_interval_seconds),
       credentials_ciphertext = COALESCE($6, credentials_ciphertext),
       credentials_data_key = COALESCE($7, credentials_data_key),
       credentials_version = credentials_version + CASE WHEN $6::text IS NULL THEN 0 ELSE 1 END,
       status = CASE WHEN $6::text IS NOT NULL AND status = 'failing' THEN 'active'::connection_status ELSE status END,
       last_error = CASE WHEN $6::text IS NOT NULL AND status = 'failing' THEN NULL ELSE last_error END,
       updated_at = $8
     WHERE workspace_id = $1 AND id = $2 RETURNING ${VIEW_COLUMNS}`,
    [workspaceId, id, change.settings === undefined ? null : JSON.stringify(change.settings), change.baseUrl ?? null, change.syncIntervalSeconds ?? null,
      sealed?.ciphertext ?? null, sealed?.dataKey ?? null, now],
  );
  return rows[0];
}

/** Pause (from active or failing) or resume (from paused). Undefined when the workspace has no such connection. */
export async function setPaused(db: Queryable, workspaceId: string, id: string, paused: boolean, now: Date): Promise<ConnectionRow | undefined> {
  const { rows } = await db.query<ConnectionRow>(
    `UPDATE connections SET status = CASE WHEN $3 THEN 'paused'::connection_status WHEN status = 'paused' THEN 'active'::connection_status ELSE status END,
            updated_at = $4
      WHERE workspace_id = $1 AND id = $2 RETURNING ${VIEW_COLUMNS}`,
    [workspaceId, id, paused, now],
  );
  return rows[0];
}

/** The batches a connection landed, for deleting it with its data. */
export async function connectionRecordIds(db: Queryable, workspaceId: string, id: string, limit: number, afterId = ''): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT r.id FROM records r JOIN batches b ON b.id = r.batch_id
      WHERE b.workspace_id = $1 AND b.connection_id = $2 AND r.id > $3 ORDER BY r.id LIMIT $4`,
    [workspaceId, id, afterId, limit],
  );
  return rows.map((r) => r.id);
}

export async function deleteConnectionRow(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM connections WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}
