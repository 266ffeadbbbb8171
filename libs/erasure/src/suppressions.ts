import { createHash } from 'node:crypto';
import { lockLandings } from '@loupe/batches';
import { newId } from '@loupe/db';
import type pg from 'pg';
import type { SubjectKind } from './match';

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

/**
 * The hash a suppression keeps: SHA-256 of the workspace id, the kind and the value trimmed and
 * lower-cased, emails and participant ids alike, since an erasure finds both case-insensitively.
 * (Defined here, not with the erasure's own hashing, because rows already written depend on it.)
 */
export function suppressionHash(workspaceId: string, kind: SubjectKind, value: string): string {
  return sha256(`${workspaceId}\n${kind}\n${value.trim().toLowerCase()}`);
}

/**
 * What suppressions of participant ids made before ids were case-folded keep: the id trimmed, in the
 * case it was asked for. Such a row cannot be rewritten (nothing of the id is left but its hash), so
 * checks look for it too: it still refuses the id in that case, as it did. It becomes case-insensitive
 * when the id is suppressed again as it was asked (another erasure of it, or the end of its own erasure
 * if it was still running): `addSuppression` rewrites it. Ids without capitals (and every email) hash
 * the same either way, so their old rows already match in any case.
 */
function legacyIdHash(workspaceId: string, value: string): string {
  return sha256(`${workspaceId}\nparticipant_id\n${value.trim()}`);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Adds a suppression unless an active one of the same person exists; returns the active one. Call it
 * inside a transaction: it takes the workspace's landing lock exclusively (`lockLandings`), so it waits
 * for landings in flight to commit (the erasure queued with it then finds their records) and every
 * landing after it sees it.
 */
export async function addSuppression(db: Queryable, input: { workspaceId: string; kind: SubjectKind; value: string; erasureId?: string | null; by: string; now: Date }): Promise<SuppressionView> {
  const hash = suppressionHash(input.workspaceId, input.kind, input.value);
  await lockLandings(db, input.workspaceId, 'exclusive');
  const legacy = input.kind === 'participant_id' ? legacyIdHash(input.workspaceId, input.value) : hash;
  if (legacy !== hash) {
    // An active row of this id from before case-folding becomes the case-insensitive one.
    const { rows: upgraded } = await db.query<Row>(
      `UPDATE suppressions SET value_hash = $4 WHERE workspace_id = $1 AND kind = $2 AND value_hash = $3 AND lifted_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM suppressions WHERE workspace_id = $1 AND kind = $2 AND value_hash = $4 AND lifted_at IS NULL)
       RETURNING ${COLUMNS}`,
      [input.workspaceId, input.kind, legacy, hash],
    );
    if (upgraded[0]) return view(upgraded[0]);
  }
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

/** What a record, source or signal offers to be checked against the suppressions. */
export interface Candidate {
  /** A record's participants: each one's `email` and `id` (an id that is an address counts as one), and any address in the entry. */
  participants?: ReadonlyArray<{ id?: string | undefined; email?: string | undefined }> | undefined;
  /**
   * A record's `data` as parsed (never its JSON text, where `\u0040` or `\u003c…\u003e` would hide an
   * address): every address in its strings, keys included.
   */
  data?: unknown;
  /** Plain text (not JSON): every address in it. Reported as `data`. */
  text?: string | undefined;
  /** Named text fields (a signal's content, who said it): every address in each, reported under its name. */
  texts?: ReadonlyArray<{ field: string; value: string | null | undefined }> | undefined;
  /** Named participant ids (a signal's participant_id): the id (and the address, when it is one). */
  ids?: ReadonlyArray<{ field: string; value: string | null | undefined }> | undefined;
}

const EMAIL_IN_TEXT = /[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}.-]+\.[\p{L}]{2,}/gu;

/** Every address written in the strings (keys too) of a parsed JSON value; iterative, so no depth overflows. */
function addressesIn(value: unknown, out: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('@')) for (const m of v.match(EMAIL_IN_TEXT) ?? []) out.add(m);
    } else if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) stack.push(k, item);
    }
  }
}

/** Where a candidate names a suppressed person: the field and the suppression, never the value. */
export interface SuppressedHit {
  field: string;
  suppressionId: string;
}

/**
 * Checks candidates (records of one request, an MCP source, signals) against the workspace's active
 * suppressions: the hashes of participants' emails and ids, and of every address written in their data
 * and text. One query for all; none more for a workspace without suppressions. To keep out a person
 * erased while the caller writes, call it inside the writing transaction after `lockLandings(…, 'shared')`
 * (`withLanding` does both for a batch).
 */
export async function findSuppressed(db: Queryable, workspaceId: string, candidates: readonly Candidate[]): Promise<Map<number, SuppressedHit>> {
  const hits = new Map<number, SuppressedHit>();
  const { rows: any } = await db.query('SELECT 1 FROM suppressions WHERE workspace_id = $1 AND lifted_at IS NULL LIMIT 1', [workspaceId]);
  if (!any.length) return hits;
  const wanted: Array<{ index: number; field: string; hash: string }> = [];
  candidates.forEach((c, index) => {
    const email = (field: string, value: string) => wanted.push({ index, field, hash: suppressionHash(workspaceId, 'email', value) });
    const id = (field: string, value: string) => {
      const hash = suppressionHash(workspaceId, 'participant_id', value);
      wanted.push({ index, field, hash });
      const legacy = legacyIdHash(workspaceId, value);
      if (legacy !== hash) wanted.push({ index, field, hash: legacy });
      if (value.includes('@')) email(field, value);
    };
    const addresses = (field: string, value: unknown) => {
      const found = new Set<string>();
      addressesIn(value, found);
      for (const m of found) email(field, m);
    };
    c.participants?.forEach((p, i) => {
      if (p.email) email(`_participants[${i}].email`, p.email);
      if (p.id) id(`_participants[${i}].id`, p.id);
      addresses(`_participants[${i}]`, p);
    });
    c.ids?.forEach((f) => {
      if (f.value?.trim()) id(f.field, f.value);
    });
    if (c.data !== undefined) addresses('data', c.data);
    if (c.text) addresses('data', c.text);
    c.texts?.forEach((f) => {
      if (f.value) addresses(f.field, f.value);
    });
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
