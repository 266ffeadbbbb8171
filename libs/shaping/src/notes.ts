import { newId, withTransaction } from '@loupe/db';
import type { Clock } from '@loupe/http';
import type pg from 'pg';
import {
  ProductNotFoundError,
  SHAPING_LIMITS,
  ShapingError,
  ShapingNoteNotFoundError,
  ShapingValidationError,
  ShapingVersionNotFoundError,
  validateContent,
  validateStatus,
  validateSubtitle,
  validateTags,
  validateTitle,
  type ShapingStatus,
} from './validation';

export interface ShapingNote {
  id: string;
  workspaceId: string;
  productId: string;
  title: string;
  subtitle: string | null;
  /** Markdown. */
  content: string;
  /** Null: outside the pipeline. */
  status: ShapingStatus | null;
  tags: string[];
  /** 1 when created; +1 on every update or restore. */
  version: number;
  createdByUserId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The full state of a note as one version left it. */
export interface ShapingNoteVersion {
  noteId: string;
  version: number;
  title: string;
  subtitle: string | null;
  content: string;
  status: ShapingStatus | null;
  tags: string[];
  /** Who wrote this version (the creator for version 1, the updater after). */
  createdByUserId: string | null;
  createdAt: Date;
}

/** A version as lists show it: everything but its text. */
export type ShapingNoteVersionSummary = Omit<ShapingNoteVersion, 'content'>;

export interface CreateShapingNoteInput {
  workspaceId: string;
  productId: string;
  title: string;
  content: string;
  subtitle?: string | null;
  /** Omitted, null or '': outside the pipeline. */
  status?: string | null;
  tags?: string[];
  createdByUserId?: string | null;
}

export interface UpdateShapingNoteInput {
  workspaceId: string;
  noteId: string;
  /** Each given field replaces the old value outright; omitted (undefined) fields stay. */
  title?: string;
  content?: string;
  /** '' or null removes the subtitle. */
  subtitle?: string | null;
  /** '' or null takes the note out of the pipeline. */
  status?: string | null;
  /** Replaces the whole list; [] removes every tag. */
  tags?: string[];
  updatedByUserId?: string | null;
}

export interface ListShapingNotesOptions {
  productId: string;
  /** A pipeline status; null lists only notes outside the pipeline; omitted lists all. */
  status?: string | null;
  /** Only notes carrying this tag (case aside). */
  tag?: string;
  /** Words that must all appear (case aside) in the title, subtitle, content or tags. */
  query?: string;
  limit: number;
  offset: number;
}

/** What an update or a restore did: `unchanged` when the note already was in that state (no new version). */
export type ShapingNoteWrite = ShapingNote & { unchanged: boolean };

export interface RestoreVersionInput {
  workspaceId: string;
  noteId: string;
  version: number;
  restoredByUserId?: string | null;
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

interface NoteRow {
  id: string;
  workspace_id: string;
  product_id: string;
  title: string;
  subtitle: string | null;
  content: string;
  status: string | null;
  tags: string[] | null;
  version: number;
  created_by_user_id: string | null;
  created_at: Date;
  updated_at: Date;
}

interface VersionRow {
  note_id: string;
  version: number;
  title: string;
  subtitle: string | null;
  content: string;
  status: string | null;
  tags: string[] | null;
  created_by_user_id: string | null;
  created_at: Date;
}

const NOTE_COLUMNS =
  'id, workspace_id, product_id, title, subtitle, content, status, tags, version, created_by_user_id, created_at, updated_at';

function toNote(row: NoteRow): ShapingNote {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    productId: row.product_id,
    title: row.title,
    subtitle: row.subtitle,
    content: row.content,
    status: row.status as ShapingStatus | null,
    tags: row.tags ?? [],
    version: row.version,
    createdByUserId: row.created_by_user_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toVersion(row: VersionRow): ShapingNoteVersion {
  return {
    noteId: row.note_id,
    version: row.version,
    title: row.title,
    subtitle: row.subtitle,
    content: row.content,
    status: row.status as ShapingStatus | null,
    tags: row.tags ?? [],
    createdByUserId: row.created_by_user_id,
    createdAt: row.created_at,
  };
}

function assertWorkspaceId(workspaceId: unknown): asserts workspaceId is string {
  if (typeof workspaceId !== 'string' || workspaceId.length === 0) {
    throw new ShapingError('a workspace id is required');
  }
}

async function insertVersion(client: Queryable, note: ShapingNote, byUserId: string | null): Promise<void> {
  await client.query(
    `INSERT INTO shaping_note_versions (note_id, version, title, subtitle, content, status, tags, created_by_user_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [note.id, note.version, note.title, note.subtitle, note.content, note.status, note.tags, byUserId, note.updatedAt],
  );
}

/** Locks the note's row until the transaction ends; a note of another workspace is not found. */
async function lockNote(client: pg.PoolClient, workspaceId: string, noteId: string): Promise<ShapingNote> {
  const { rows } = await client.query<NoteRow>(
    `SELECT ${NOTE_COLUMNS} FROM shaping_notes WHERE id = $1 AND workspace_id = $2 FOR UPDATE`,
    [noteId, workspaceId],
  );
  if (!rows[0]) throw new ShapingNoteNotFoundError(noteId);
  return toNote(rows[0]);
}

interface NoteState {
  title: string;
  subtitle: string | null;
  content: string;
  status: ShapingStatus | null;
  tags: string[];
}

/**
 * Writes `state` as version `current.version + 1`. The update is conditional on the version the
 * caller read, so two writers can never both produce the same version; the row lock taken by
 * lockNote makes the second writer wait and then read the first one's version.
 */
async function writeNextVersion(
  client: pg.PoolClient,
  current: ShapingNote,
  state: NoteState,
  byUserId: string | null,
  clock: Clock,
): Promise<ShapingNoteWrite> {
  // The same state again is not a new version: an update is idempotent, as its tool says.
  if (sameState(current, state)) return { ...current, unchanged: true };
  const now = new Date(clock.now());
  const { rows } = await client.query<NoteRow>(
    `UPDATE shaping_notes
        SET title = $4, subtitle = $5, content = $6, status = $7, tags = $8, version = version + 1, updated_at = $9
      WHERE id = $1 AND workspace_id = $2 AND version = $3
      RETURNING ${NOTE_COLUMNS}`,
    [current.id, current.workspaceId, current.version, state.title, state.subtitle, state.content, state.status, state.tags, now],
  );
  if (!rows[0]) {
    throw new ShapingError(`Shaping note ${current.id} was changed by someone else at the same time; try again`);
  }
  const note = toNote(rows[0]);
  await insertVersion(client, note, byUserId);
  return { ...note, unchanged: false };
}

function sameState(a: NoteState, b: NoteState): boolean {
  return a.title === b.title && a.subtitle === b.subtitle && a.content === b.content && a.status === b.status
    && a.tags.length === b.tags.length && a.tags.every((t, i) => t === b.tags[i]);
}

/** Creates a note at version 1 (stored as version 1 too). The product must belong to the workspace. */
export async function createShapingNote(pool: pg.Pool, input: CreateShapingNoteInput, clock: Clock): Promise<ShapingNote> {
  assertWorkspaceId(input.workspaceId);
  const title = validateTitle(input.title);
  const content = validateContent(input.content);
  const subtitle = validateSubtitle(input.subtitle);
  const status = validateStatus(input.status);
  const tags = validateTags(input.tags);
  if (typeof input.productId !== 'string' || input.productId.length === 0) {
    throw new ShapingValidationError('productId', 'product_id is required: call get_products to choose one');
  }
  const createdBy = input.createdByUserId ?? null;
  return withTransaction(pool, async (client) => {
    const product = await client.query('SELECT 1 FROM products WHERE id = $1 AND workspace_id = $2', [
      input.productId,
      input.workspaceId,
    ]);
    if (product.rowCount === 0) throw new ProductNotFoundError(input.productId);
    const now = new Date(clock.now());
    const { rows } = await client.query<NoteRow>(
      `INSERT INTO shaping_notes (id, workspace_id, product_id, title, subtitle, content, status, tags, version, created_by_user_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10, $10)
       RETURNING ${NOTE_COLUMNS}`,
      [newId('shn', clock.now()), input.workspaceId, input.productId, title, subtitle, content, status, tags, createdBy, now],
    );
    const note = toNote(rows[0]!);
    await insertVersion(client, note, createdBy);
    return note;
  });
}

/**
 * Replaces each given field outright, keeps the omitted ones, bumps the version and stores the
 * new full state as that version, all in one transaction. When nothing differs from the current
 * state, nothing is written and the note comes back `unchanged`.
 */
export async function updateShapingNote(pool: pg.Pool, input: UpdateShapingNoteInput, clock: Clock): Promise<ShapingNoteWrite> {
  assertWorkspaceId(input.workspaceId);
  const changes: Partial<NoteState> = {};
  if (input.title !== undefined) changes.title = validateTitle(input.title);
  if (input.content !== undefined) changes.content = validateContent(input.content);
  if (input.subtitle !== undefined) changes.subtitle = validateSubtitle(input.subtitle);
  if (input.status !== undefined) changes.status = validateStatus(input.status);
  if (input.tags !== undefined) changes.tags = validateTags(input.tags);
  if (Object.keys(changes).length === 0) {
    throw new ShapingValidationError('note', 'nothing to update: give at least one of title, content, subtitle, status, tags');
  }
  if (typeof input.noteId !== 'string' || input.noteId.length === 0) throw new ShapingNoteNotFoundError(String(input.noteId));
  return withTransaction(pool, async (client) => {
    const current = await lockNote(client, input.workspaceId, input.noteId);
    const state: NoteState = {
      title: current.title,
      subtitle: current.subtitle,
      content: current.content,
      status: current.status,
      tags: current.tags,
      ...changes,
    };
    return writeNextVersion(client, current, state, input.updatedByUserId ?? null, clock);
  });
}

/** One note of the workspace; a note of another workspace is answered like a missing one. */
export async function getShapingNote(pool: pg.Pool, workspaceId: string, noteId: string): Promise<ShapingNote> {
  assertWorkspaceId(workspaceId);
  const { rows } = await pool.query<NoteRow>(
    `SELECT ${NOTE_COLUMNS} FROM shaping_notes WHERE id = $1 AND workspace_id = $2`,
    [noteId, workspaceId],
  );
  if (!rows[0]) throw new ShapingNoteNotFoundError(noteId);
  return toNote(rows[0]);
}

/** A product's notes, most recently updated first, paged, with the total of the filter. */
export async function listShapingNotes(
  pool: pg.Pool,
  workspaceId: string,
  options: ListShapingNotesOptions,
): Promise<{ items: ShapingNote[]; total: number }> {
  assertWorkspaceId(workspaceId);
  const { productId, limit, offset } = options;
  if (typeof productId !== 'string' || productId.length === 0) {
    throw new ShapingValidationError('productId', 'product_id is required: call get_products to choose one');
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > SHAPING_LIMITS.listMaxLimit) {
    throw new ShapingValidationError('limit', `limit must be a whole number from 1 to ${SHAPING_LIMITS.listMaxLimit} (got ${limit})`);
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw new ShapingValidationError('offset', `offset must be a whole number of at least 0 (got ${offset})`);
  }
  const params: unknown[] = [workspaceId, productId];
  let statusFilter = '';
  if (options.status === null || options.status === '') {
    statusFilter = ' AND status IS NULL';
  } else if (options.status !== undefined) {
    params.push(validateStatus(options.status));
    statusFilter = ` AND status = $${params.length}`;
  }
  let textFilter = '';
  if (options.tag !== undefined && options.tag.trim() !== '') {
    params.push(options.tag.trim().toLowerCase());
    textFilter += ` AND $${params.length} = ANY (SELECT lower(t) FROM unnest(tags) t)`;
  }
  for (const word of (options.query ?? '').split(/\s+/).filter(Boolean).slice(0, 20)) {
    params.push(`%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const p = `$${params.length}`;
    textFilter += ` AND (title ILIKE ${p} OR subtitle ILIKE ${p} OR content ILIKE ${p} OR array_to_string(tags, ' ') ILIKE ${p})`;
  }
  const where = `workspace_id = $1 AND product_id = $2${statusFilter}${textFilter}`;
  const [page, count] = await Promise.all([
    pool.query<NoteRow>(
      `SELECT ${NOTE_COLUMNS} FROM shaping_notes WHERE ${where}
        ORDER BY updated_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    ),
    pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM shaping_notes WHERE ${where}`, params),
  ]);
  return { items: page.rows.map(toNote), total: count.rows[0]?.total ?? 0 };
}

/** One version of a note (its full state then); a note of another workspace is answered like a missing one. */
export async function getVersion(pool: pg.Pool, workspaceId: string, noteId: string, version: number): Promise<ShapingNoteVersion> {
  assertWorkspaceId(workspaceId);
  const { rows } = await pool.query<VersionRow & { found: boolean }>(
    `SELECT v.note_id, v.version, v.title, v.subtitle, v.content, v.status, v.tags, v.created_by_user_id, v.created_at
       FROM shaping_notes n
       LEFT JOIN shaping_note_versions v ON v.note_id = n.id AND v.version = $3
      WHERE n.id = $1 AND n.workspace_id = $2`,
    [noteId, workspaceId, version],
  );
  if (!rows[0]) throw new ShapingNoteNotFoundError(noteId);
  if (rows[0].version === null) throw new ShapingVersionNotFoundError(noteId, version);
  return toVersion(rows[0]);
}

/**
 * Every version of a note, oldest first, without their text: a note may hold 1 MB in each of many
 * versions, and lists (the version picker, view_item) need only who wrote which and when (getVersion reads one).
 */
export async function listVersions(pool: pg.Pool, workspaceId: string, noteId: string): Promise<ShapingNoteVersionSummary[]> {
  assertWorkspaceId(workspaceId);
  const { rows } = await pool.query<VersionRow>(
    `SELECT v.note_id, v.version, v.title, v.subtitle, NULL AS content, v.status, v.tags, v.created_by_user_id, v.created_at
       FROM shaping_notes n
       JOIN shaping_note_versions v ON v.note_id = n.id
      WHERE n.id = $1 AND n.workspace_id = $2
      ORDER BY v.version`,
    [noteId, workspaceId],
  );
  // Every note has at least version 1, so no rows means no such note in this workspace.
  if (rows.length === 0) throw new ShapingNoteNotFoundError(noteId);
  return rows.map((row) => {
    const { content: _none, ...summary } = toVersion(row);
    return summary;
  });
}

/**
 * Makes an earlier version current again, as a new version equal to it (history is never rewritten);
 * when the note already is in that state, nothing is written and it comes back `unchanged`.
 */
export async function restoreVersion(pool: pg.Pool, input: RestoreVersionInput, clock: Clock): Promise<ShapingNoteWrite> {
  assertWorkspaceId(input.workspaceId);
  if (!Number.isInteger(input.version) || input.version < 1) {
    throw new ShapingValidationError('version', `version must be a whole number of at least 1 (got ${input.version})`);
  }
  return withTransaction(pool, async (client) => {
    const current = await lockNote(client, input.workspaceId, input.noteId);
    const { rows } = await client.query<VersionRow>(
      `SELECT note_id, version, title, subtitle, content, status, tags, created_by_user_id, created_at
         FROM shaping_note_versions WHERE note_id = $1 AND version = $2`,
      [current.id, input.version],
    );
    if (!rows[0]) throw new ShapingVersionNotFoundError(current.id, input.version);
    const old = toVersion(rows[0]);
    const state: NoteState = { title: old.title, subtitle: old.subtitle, content: old.content, status: old.status, tags: old.tags };
    return writeNextVersion(client, current, state, input.restoredByUserId ?? null, clock);
  });
}
