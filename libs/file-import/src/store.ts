import { newId } from '@loupe/db';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import type pg from 'pg';
import { mappingProblems, storable, type Mapping } from './mapping';
import type { FileFormat, FileRow } from './read-rows';

/** Saved mappings per workspace: at most this many, each name at most this long. */
export const MAX_SAVED_MAPPINGS = 200;
export const MAX_MAPPING_NAME = 100;
/** Refused rows kept by name on an import (all are counted). */
export const MAX_NAMED_REFUSALS = 1000;

/** A mapping or its name is wrong: every problem, each as `path: what is wrong`. */
export class MappingError extends Error {
  override name = 'MappingError';
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

export interface SavedMapping {
  id: string;
  name: string;
  mapping: Mapping;
  createdBy: string | null;
  updatedBy: string | null;
  /** The e-mail addresses of who made and last changed it (null: the person left). */
  createdByEmail: string | null;
  updatedByEmail: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface MappingRow {
  id: string; name: string; mapping: unknown; created_by: string | null; updated_by: string | null;
  created_by_email: string | null; updated_by_email: string | null; created_at: Date; updated_at: Date;
}

const MAPPING_COLUMNS = `m.id, m.name, m.mapping, m.created_by, m.updated_by, m.created_at, m.updated_at,
  (SELECT email FROM users WHERE id = m.created_by) AS created_by_email, (SELECT email FROM users WHERE id = m.updated_by) AS updated_by_email`;

function savedOf(r: MappingRow): SavedMapping {
  // Stored through saveMapping, which checks it; parsed again so a schema change shows rather than breaks.
  const { mapping, problems } = mappingProblems(r.mapping);
  if (!mapping) throw new MappingError(problems.map((p) => `saved mapping "${r.name}": ${p}`));
  return {
    id: r.id, name: r.name, mapping, createdBy: r.created_by, updatedBy: r.updated_by, createdByEmail: r.created_by_email,
    updatedByEmail: r.updated_by_email, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/** The problems of a mapping's name; none when it is fine. */
export function mappingNameProblems(name: string): string[] {
  const n = name.trim();
  if (!n) return ['name: must not be empty'];
  if (n.length > MAX_MAPPING_NAME) return [`name: at most ${MAX_MAPPING_NAME} characters (got ${n.length})`];
  if (/[\u0000-\u001f\u007f]/.test(n)) return ['name: must not hold control characters'];
  return [];
}

/** The workspace's saved mappings, by name (those this version cannot read left out). */
export async function listMappings(pool: pg.Pool, workspaceId: string): Promise<SavedMapping[]> {
  const { rows } = await pool.query<MappingRow>(`SELECT ${MAPPING_COLUMNS} FROM import_mappings m WHERE m.workspace_id = $1 ORDER BY lower(m.name), m.id`, [workspaceId]);
  // One saved under an older schema that this version no longer reads is left out of the list, not the page.
  return rows.flatMap((r) => {
    try {
      return [savedOf(r)];
    } catch {
      return [];
    }
  });
}

export async function findMapping(pool: pg.Pool, workspaceId: string, idOrName: string): Promise<SavedMapping | undefined> {
  const { rows } = await pool.query<MappingRow>(
    `SELECT ${MAPPING_COLUMNS} FROM import_mappings m WHERE m.workspace_id = $1 AND (m.id = $2 OR m.name = $2) ORDER BY (m.id = $2) DESC LIMIT 1`,
    [workspaceId, idOrName],
  );
  return rows[0] && savedOf(rows[0]);
}

/**
 * Saves `mapping` under `name` in the workspace: a new one, or the one of that name replaced (who changed it
 * and when kept). The mapping is checked by the same schema as the CLI's mapping file.
 */
export async function saveMapping(pool: pg.Pool, workspaceId: string, input: { name: string; mapping: unknown; userId: string | null }, now: Date): Promise<SavedMapping> {
  const name = input.name.trim();
  const { mapping, problems } = mappingProblems(input.mapping);
  const all = [...mappingNameProblems(name), ...problems];
  if (!mapping || all.length) throw new MappingError(all);
  const { rows: count } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM import_mappings WHERE workspace_id = $1 AND name <> $2', [workspaceId, name]);
  if (count[0]!.n >= MAX_SAVED_MAPPINGS) throw new MappingError([`name: this workspace already has ${MAX_SAVED_MAPPINGS} saved mappings; delete one first`]);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO import_mappings (id, workspace_id, name, mapping, created_by, updated_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $6)
     ON CONFLICT (workspace_id, name) DO UPDATE SET mapping = EXCLUDED.mapping, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at
     RETURNING id`,
    [newId('imap', now.getTime()), workspaceId, name, JSON.stringify(mapping), input.userId, now],
  );
  return (await findMapping(pool, workspaceId, rows[0]!.id))!;
}

/** True when the workspace had that mapping. */
export async function deleteMapping(pool: pg.Pool, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM import_mappings WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}

export type ImportStatus = 'draft' | 'queued' | 'running' | 'done' | 'failed';

export interface Refusal {
  where: FileRow['where'];
  problems: string[];
}

export interface FileImport {
  id: string;
  workspaceId: string;
  fileName: string;
  storageKey: string;
  sizeBytes: number;
  format: FileFormat;
  mapping: Mapping | null;
  productId: string | null;
  projectId: string | null;
  status: ImportStatus;
  rowsRead: number;
  bytesRead: number;
  stored: number;
  duplicates: number;
  refused: number;
  /** The first MAX_NAMED_REFUSALS refused rows, in file order. */
  refusals: Refusal[];
  lastError: string | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

interface ImportRow {
  id: string; workspace_id: string; file_name: string; storage_key: string; size_bytes: string; format: string; mapping: unknown;
  product_id: string | null; project_id: string | null; status: ImportStatus; rows_read: number; bytes_read: string; stored_count: number;
  duplicates_count: number; refused_count: number; refusals: Refusal[]; last_error: string | null; created_by: string | null;
  created_at: Date; updated_at: Date; started_at: Date | null; finished_at: Date | null;
}

function importOf(r: ImportRow): FileImport {
  const parsed = r.mapping === null ? undefined : mappingProblems(r.mapping).mapping;
  return {
    id: r.id, workspaceId: r.workspace_id, fileName: r.file_name, storageKey: r.storage_key, sizeBytes: Number(r.size_bytes), format: r.format as FileFormat,
    mapping: parsed ?? null, productId: r.product_id, projectId: r.project_id, status: r.status, rowsRead: r.rows_read, bytesRead: Number(r.bytes_read),
    stored: r.stored_count, duplicates: r.duplicates_count, refused: r.refused_count, refusals: r.refusals, lastError: r.last_error,
    createdBy: r.created_by, createdAt: r.created_at, updatedAt: r.updated_at, startedAt: r.started_at, finishedAt: r.finished_at,
  };
}

/** The storage key of an upload: its workspace and import, nothing of the person's file name. */
export const importStorageKey = (workspaceId: string, importId: string) => `imports/${workspaceId}/${importId}/upload`;

export async function createFileImport(
  pool: pg.Pool,
  input: { id: string; workspaceId: string; fileName: string; storageKey: string; sizeBytes: number; format: FileFormat; createdBy: string | null },
  now: Date,
): Promise<FileImport> {
  const { rows } = await pool.query<ImportRow>(
    `INSERT INTO file_imports (id, workspace_id, file_name, storage_key, size_bytes, format, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
    [input.id, input.workspaceId, storable(input.fileName.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255)) || 'upload', input.storageKey, input.sizeBytes, input.format, input.createdBy, now],
  );
  return importOf(rows[0]!);
}

export async function getFileImport(pool: Pick<pg.Pool, 'query'>, workspaceId: string, id: string): Promise<FileImport | undefined> {
  const { rows } = await pool.query<ImportRow>('SELECT * FROM file_imports WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return rows[0] && importOf(rows[0]);
}

/** The workspace's latest imports, newest first. */
export async function listFileImports(pool: pg.Pool, workspaceId: string, limit = 20): Promise<FileImport[]> {
  const { rows } = await pool.query<ImportRow>(
    `SELECT id, workspace_id, file_name, storage_key, size_bytes, format, mapping, product_id, project_id, status, rows_read, bytes_read, stored_count,
            duplicates_count, refused_count, '[]'::jsonb AS refusals, last_error, created_by, created_at, updated_at, started_at, finished_at
       FROM file_imports WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [workspaceId, limit],
  );
  return rows.map(importOf);
}

/** Sets the mapping of an import not yet started; false when it has started (or is not the workspace's). */
export async function setImportMapping(pool: pg.Pool, workspaceId: string, id: string, input: { mapping: Mapping; productId: string; projectId: string }, now: Date): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE file_imports SET mapping = $3, product_id = $4, project_id = $5, updated_at = $6 WHERE workspace_id = $1 AND id = $2 AND status = 'draft'`,
    [workspaceId, id, JSON.stringify(input.mapping), input.productId, input.projectId, now],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Queues a mapped import: the status and its job in one transaction (a started import always has its job).
 * False when it is not a draft with a mapping (started already, or never mapped).
 */
export async function startFileImport(pool: pg.Pool, boss: Boss, workspaceId: string, id: string, now: Date): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rowCount } = await client.query(
      `UPDATE file_imports SET status = 'queued', updated_at = $3 WHERE workspace_id = $1 AND id = $2 AND status = 'draft' AND mapping IS NOT NULL`,
      [workspaceId, id, now],
    );
    if (!rowCount) {
      await client.query('ROLLBACK');
      return false;
    }
    await enqueue(boss, QUEUES.importFile, { workspaceId, importId: id }, { client });
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** A draft (uploaded, never started) is kept this long, then deleted with its file. */
export const DRAFT_TTL_MS = 7 * 24 * 3600 * 1000;

/** Deletes a draft of the workspace with its uploaded file; false when there is no such draft (started, or not the workspace's). */
export async function discardDraft(pool: pg.Pool, storage: { delete(key: string): Promise<boolean> }, workspaceId: string, id: string): Promise<boolean> {
  const { rows } = await pool.query<{ storage_key: string }>(
    "DELETE FROM file_imports WHERE workspace_id = $1 AND id = $2 AND status = 'draft' RETURNING storage_key", [workspaceId, id],
  );
  if (!rows[0]) return false;
  await storage.delete(rows[0].storage_key);
  return true;
}

/**
 * Drafts older than DRAFT_TTL_MS (a file uploaded and never imported), deleted with their files, up to `limit`
 * per call (the worker's hourly sweep). Returns how many.
 */
export async function purgeStaleDrafts(pool: pg.Pool, storage: { delete(key: string): Promise<boolean> }, now: Date, limit = 500): Promise<number> {
  const { rows } = await pool.query<{ storage_key: string }>(
    `DELETE FROM file_imports WHERE id IN (SELECT id FROM file_imports WHERE status = 'draft' AND created_at < $1 ORDER BY created_at LIMIT $2) RETURNING storage_key`,
    [new Date(now.getTime() - DRAFT_TTL_MS), limit],
  );
  for (const r of rows) await storage.delete(r.storage_key).catch(() => false);
  return rows.length;
}
