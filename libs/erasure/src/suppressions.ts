import { newId } from '@loupe/db';
import type pg from 'pg';
import { subjectHash, type SubjectKind } from './match';

type Queryable = Pick<pg.Pool, 'query'>;

export interface SuppressionView {
  id: string;
  kind: SubjectKind;
  erasureId: string | null;
  createdBy: string;
  createdAt: Date;
  liftedBy: string | null;
  liftedAt: Date | null;
}

type Row = { id: string; kind: SubjectKind; erasure_id: string | null; created_by: string; created_at: Date; lifted_by: string | null; lifted_at: Date | null };
const view = (r: Row): SuppressionView => ({
  id: r.id, kind: r.kind, erasureId: r.erasure_id, createdBy: r.created_by, createdAt: r.created_at, liftedBy: r.lifted_by, liftedAt: r.lifted_at,
});
const COLUMNS = 'id, kind, erasure_id, created_by, created_at, lifted_by, lifted_at';

/** Adds a suppression unless an active one of the same person exists; returns the active one. */
export async function addSuppression(db: Queryable, input: { workspaceId: string; kind: SubjectKind; value: string; erasureId?: string | null; by: string; now: Date }): Promise<SuppressionView> {
  const hash = subjectHash(input.workspaceId, input.kind, input.value);
  const { rows } = await db.query<Row>(
    `INSERT INTO suppressions (id, workspace_id, kind, value_hash, erasure_id, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (workspace_id, kind, value_hash) WHERE lifted_at IS NULL DO NOTHING RETURNING ${COLUMNS}`,
    [newId('sup', input.now.getTime()), input.workspaceId, input.kind, hash, input.erasureId ?? null, input.by, input.now],
  );
  if (rows[0]) return view(rows[0]);
  const { rows: existing } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM suppressions WHERE workspace_id = $1 AND kind = $2 AND value_hash = $3 AND lifted_at IS NULL`,
    [input.workspaceId, input.kind, hash],
  );
  return view(existing[0]!);
}

/** Lifts an active suppression; false when there is none by that id in the workspace (or it was lifted already). */
export async function liftSuppression(db: Queryable, workspaceId: string, id: string, by: string, now: Date): Promise<SuppressionView | undefined> {
  const { rows } = await db.query<Row>(
    `UPDATE suppressions SET lifted_by = $3, lifted_at = $4 WHERE workspace_id = $1 AND id = $2 AND lifted_at IS NULL RETURNING ${COLUMNS}`,
    [workspaceId, id, by, now],
  );
  return rows[0] ? view(rows[0]) : undefined;
}

export async function getSuppression(db: Queryable, workspaceId: string, id: string): Promise<SuppressionView | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM suppressions WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return rows[0] ? view(rows[0]) : undefined;
}

/** Newest first; lifted ones too when asked (they are the audit of who lifted what). */
export async function listSuppressions(db: Queryable, workspaceId: string, options: { includeLifted?: boolean; limit?: number } = {}): Promise<SuppressionView[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM suppressions WHERE workspace_id = $1 AND ($2 OR lifted_at IS NULL) ORDER BY created_at DESC, id DESC LIMIT $3`,
    [workspaceId, options.includeLifted ?? false, Math.min(options.limit ?? 100, 500)],
  );
  return rows.map(view);
}

/** What a record or source offers to be checked against the suppressions. */
export interface Candidate {
  participants?: ReadonlyArray<{ id?: string | undefined; email?: string | undefined }> | undefined;
  /** Free text (the record's `data` as sent): every email address in it is checked. */
  text?: string | undefined;
  /** Participant ids named elsewhere (a signal's participant). */
  participantIds?: ReadonlyArray<string | undefined> | undefined;
}

const EMAIL_IN_TEXT = /[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}.-]+\.[\p{L}]{2,}/gu;

/** Where a candidate names a suppressed person: the field and the suppression, never the value. */
export interface SuppressedHit {
  field: string;
  suppressionId: string;
}

/**
 * Checks candidates (records of one request, an MCP source) against the workspace's active suppressions:
 * the hashes of their participants' emails and ids, and of every address written in their text. One
 * query for all; none at all for a workspace without suppressions.
 */
export async function findSuppressed(db: Queryable, workspaceId: string, candidates: readonly Candidate[]): Promise<Map<number, SuppressedHit>> {
  const hits = new Map<number, SuppressedHit>();
  const { rows: any } = await db.query('SELECT 1 FROM suppressions WHERE workspace_id = $1 AND lifted_at IS NULL LIMIT 1', [workspaceId]);
  if (!any.length) return hits;
  const wanted: Array<{ index: number; field: string; hash: string }> = [];
  candidates.forEach((c, index) => {
    c.participants?.forEach((p, i) => {
      if (p.email) wanted.push({ index, field: `_participants[${i}].email`, hash: subjectHash(workspaceId, 'email', p.email) });
      if (p.id) {
        wanted.push({ index, field: `_participants[${i}].id`, hash: subjectHash(workspaceId, 'participant_id', p.id) });
        if (p.id.includes('@')) wanted.push({ index, field: `_participants[${i}].id`, hash: subjectHash(workspaceId, 'email', p.id) });
      }
    });
    c.participantIds?.forEach((id) => {
      if (id) wanted.push({ index, field: 'participant_id', hash: subjectHash(workspaceId, 'participant_id', id) });
    });
    if (c.text) {
      for (const m of new Set(c.text.match(EMAIL_IN_TEXT) ?? [])) wanted.push({ index, field: 'data', hash: subjectHash(workspaceId, 'email', m) });
    }
  });
  if (!wanted.length) return hits;
  const { rows } = await db.query<{ id: string; value_hash: string }>(
    'SELECT id, value_hash FROM suppressions WHERE workspace_id = $1 AND lifted_at IS NULL AND value_hash = ANY($2::text[])',
    [workspaceId, [...new Set(wanted.map((w) => w.hash))]],
  );
  const byHash = new Map(rows.map((r) => [r.value_hash, r.id]));
  for (const w of wanted) {
    const id = byHash.get(w.hash);
    if (id && !hits.has(w.index)) hits.set(w.index, { field: w.field, suppressionId: id });
  }
  return hits;
}

export const SUPPRESSED_CODE = 'PERSON_SUPPRESSED';

/** The record error's message: where, and which suppression; never the address or id itself. */
export function suppressedMessage(hit: SuppressedHit): string {
  return `${hit.field}: names a person erased from this workspace (suppression ${hit.suppressionId}); records about them are refused until the suppression is lifted`;
}
