import { newId, withTransaction } from '@loupe/db';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import type pg from 'pg';
import { foldName, MIN_PARTICIPANT_ID_LENGTH, normaliseSubject, subjectHash, type SubjectKind } from './match';
import {
  foundIdentifiers, newState, offeredNames, PREVIEW_TTL_MS, readState, type FoundIdentifier, type OfferedName, type Sample,
} from './subject';
import { addSuppression } from './suppressions';

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * `queued` → `running` → `complete`; a dry run `queued` → `running` → `previewed`, then confirmed
 * (`queued` again, as an erasure) or `expired`. `failed`: its job ran out of retries; it carries on
 * when its job runs again or the person is asked to be erased again.
 */
export const ERASURE_STATUSES = ['queued', 'running', 'previewed', 'complete', 'expired', 'failed'] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];

/** Who asked: a person on the pages or the CLI, or an API key. `label` is what the audit shows. */
export interface Requester {
  userId?: string | null;
  keyId?: string | null;
  label: string;
}

export interface ErasureCounts {
  records?: number;
  attachments?: number;
  sources?: number;
  segments?: number;
  signalsDeleted?: number;
  signalsRedacted?: number;
  signalChanges?: number;
  opportunities?: number;
  shapingNotes?: number;
  /** Entries of the workspace's people (libs/companies) with the person's email or id, deleted. */
  people?: number;
  other?: number;
}

/**
 * What a dry run found: what the erasure would change (`counts`, and a few `samples` of each kind),
 * the addresses and ids found beside the given ones (used unless shared), and the names found beside
 * them, offered: a name is looked for only when the requester confirms it, and a shared one never is;
 * `mentions` is how many more rows confirming it would change.
 */
export interface ErasurePreview {
  counts: ErasureCounts;
  samples: Sample[];
  identifiers: FoundIdentifier[];
  names: Array<OfferedName & { mentions: number | null }>;
  expiresAt: Date;
}

/** An erasure request as every surface shows it: never the email, id or names it looks for (a preview, to whoever may confirm it, does). */
export interface ErasureView {
  id: string;
  status: ErasureStatus;
  phase: string;
  subjectKind: SubjectKind;
  /** A dry run (a preview), until it is confirmed. */
  dryRun: boolean;
  counts: ErasureCounts;
  requestedBy: string;
  requestedByUserId: string | null;
  requestedByKeyId: string | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  /** Only from getErasure, once a dry run is `previewed`. */
  preview?: ErasurePreview;
}

type Row = {
  id: string; status: ErasureStatus; phase: string; subject_kind: SubjectKind; counts: ErasureCounts; requested_by: string; dry_run: boolean;
  requested_by_user_id: string | null; requested_by_key_id: string | null; error: string | null; created_at: Date; updated_at: Date; completed_at: Date | null;
};
// A dry run: said by its subject while it holds one; after, by its status (a failed erasure keeps its
// subject to carry on, so a failed row without one is a dry run that failed: see failErasure).
export const ERASURE_COLUMNS = `id, status, phase, subject_kind, counts, requested_by, requested_by_user_id, requested_by_key_id, error, created_at, updated_at, completed_at,
  (status IN ('previewed', 'expired') OR (status = 'failed' AND subject IS NULL) OR coalesce((subject->>'dryRun')::boolean, false)) AS dry_run`;
export const erasureView = (r: Row): ErasureView => ({
  id: r.id, status: r.status, phase: r.phase, subjectKind: r.subject_kind, dryRun: r.dry_run, counts: r.counts, requestedBy: r.requested_by,
  requestedByUserId: r.requested_by_user_id, requestedByKeyId: r.requested_by_key_id, error: r.error,
  createdAt: r.created_at, updatedAt: r.updated_at, completedAt: r.completed_at,
});

export class ErasureInputError extends Error {
  override name = 'ErasureInputError';
}

/** The request is not in a state that allows this (a preview not finished, confirmed already or expired). */
export class ErasureStateError extends Error {
  override name = 'ErasureStateError';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const given = (v: unknown) => v !== undefined && v !== null && v !== '';

/**
 * Checks what an erasure is asked for: an email, a participant id, or both (the same person), and
 * whether it is a dry run. A participant id must have at least MIN_PARTICIPANT_ID_LENGTH characters.
 */
export function parseErasureInput(input: { email?: unknown; participant_id?: unknown; dry_run?: unknown }): { email?: string; participantId?: string; dryRun: boolean } {
  const out: { email?: string; participantId?: string; dryRun: boolean } = { dryRun: false };
  if (given(input.email)) {
    if (typeof input.email !== 'string' || input.email.length > 320 || !EMAIL.test(input.email.trim())) {
      throw new ErasureInputError('email: must be an email address (at most 320 characters)');
    }
    out.email = normaliseSubject('email', input.email);
  }
  if (given(input.participant_id)) {
    if (typeof input.participant_id !== 'string' || input.participant_id.trim().length === 0 || input.participant_id.length > 256) {
      throw new ErasureInputError(`participant_id: must be a participant id as sent in records (${MIN_PARTICIPANT_ID_LENGTH} to 256 characters)`);
    }
    const length = [...input.participant_id.trim()].length;
    if (length < MIN_PARTICIPANT_ID_LENGTH) {
      throw new ErasureInputError(
        `participant_id: must be at least ${MIN_PARTICIPANT_ID_LENGTH} characters (this one has ${length}); an id that short is not specific enough to erase by: give the person's email instead`,
      );
    }
    out.participantId = normaliseSubject('participant_id', input.participant_id);
  }
  if (input.dry_run !== undefined && input.dry_run !== null) {
    if (typeof input.dry_run !== 'boolean') throw new ErasureInputError('dry_run: must be true or false');
    out.dryRun = input.dry_run;
  }
  if (!out.email && !out.participantId) throw new ErasureInputError('Give the person to erase: "email" or "participant_id" (or both)');
  return out;
}

/** Checks the names a preview's confirmation gives: a list of strings (at most 20, each at most 256 characters). */
export function parseConfirmInput(input: { names?: unknown }): { names: string[] } {
  if (input.names === undefined || input.names === null) return { names: [] };
  if (!Array.isArray(input.names) || input.names.length > 20) throw new ErasureInputError('names: must be a list of at most 20 names offered by the preview');
  const names = input.names.map((n, i) => {
    if (typeof n !== 'string' || !n.trim() || n.length > 256) throw new ErasureInputError(`names[${i}]: must be a name offered by the preview (1 to 256 characters)`);
    return n.trim();
  });
  return { names };
}

/**
 * Asks for a person's erasure: the request row, a suppression of each identifier given (records naming
 * them are refused from now on) and the worker's job, in one transaction. The job's payload names only
 * the request; what it looks for is in the row until it ends. A request of the same person that failed
 * carries on too. A dry run (`dryRun`) changes nothing and suppresses no one: the worker finds what the
 * erasure would change and the request ends `previewed`, to be confirmed (`confirmErasure`) or to expire.
 */
export async function requestErasure(
  pool: pg.Pool, boss: Boss,
  input: { workspaceId: string; email?: string | undefined; participantId?: string | undefined; dryRun?: boolean; by: Requester; now: Date },
): Promise<ErasureView> {
  const kind: SubjectKind = input.email ? 'email' : 'participant_id';
  const primary = (input.email ?? input.participantId)!;
  const dryRun = input.dryRun ?? false;
  const state = newState({ emails: input.email ? [input.email] : [], ids: input.participantId ? [input.participantId] : [] }, dryRun);
  const id = newId('era', input.now.getTime());
  const hash = subjectHash(input.workspaceId, kind, primary);
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<Row>(
      `INSERT INTO erasure_requests (id, workspace_id, subject_kind, subject_hash, subject, status, phase, requested_by_user_id, requested_by_key_id, requested_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'queued', 'discover_records', $6, $7, $8, $9, $9) RETURNING ${ERASURE_COLUMNS}`,
      [id, input.workspaceId, kind, hash, JSON.stringify(state), input.by.userId ?? null, input.by.keyId ?? null, input.by.label, input.now],
    );
    if (!dryRun) {
      await suppressGiven(client, input.workspaceId, id, input, input.by.label, input.now);
      // Asked again: a request of the same person that failed carries on where it stopped (and drops what it holds of them when it ends).
      const { rows: failed } = await client.query<{ id: string }>(
        `UPDATE erasure_requests SET status = 'queued', error = NULL, updated_at = $3
          WHERE workspace_id = $1 AND subject_hash = $2 AND status = 'failed' AND subject IS NOT NULL AND NOT coalesce((subject->>'dryRun')::boolean, false) RETURNING id`,
        [input.workspaceId, hash, input.now],
      );
      for (const f of failed) await enqueue(boss, QUEUES.erasePerson, { workspaceId: input.workspaceId, erasureId: f.id }, { client });
    }
    await enqueue(boss, QUEUES.erasePerson, { workspaceId: input.workspaceId, erasureId: id }, { client });
    return erasureView(rows[0]!);
  });
}

async function suppressGiven(client: pg.PoolClient, workspaceId: string, erasureId: string, input: { email?: string | undefined; participantId?: string | undefined }, by: string, now: Date) {
  if (input.email) await addSuppression(client, { workspaceId, kind: 'email', value: input.email, erasureId, by, now });
  if (input.participantId) await addSuppression(client, { workspaceId, kind: 'participant_id', value: input.participantId, erasureId, by, now });
}

/**
 * Confirms a dry run: the same request becomes the erasure (queued again, its counts reset), with the
 * names the requester ticked among those the preview offered. A name the preview did not offer, or
 * offered as shared, is refused (ErasureInputError naming it); a request that is not a finished,
 * unexpired preview is refused (ErasureStateError). The confirmer becomes the requester in the audit.
 * Undefined when there is no such request in the workspace.
 */
export async function confirmErasure(
  pool: pg.Pool, boss: Boss,
  input: { workspaceId: string; erasureId: string; names: string[]; by: Requester; now: Date },
): Promise<ErasureView | undefined> {
  return withTransaction(pool, async (client) => {
    const { rows: [row] } = await client.query<{ status: ErasureStatus; subject: unknown }>(
      'SELECT status, subject FROM erasure_requests WHERE workspace_id = $1 AND id = $2 FOR UPDATE', [input.workspaceId, input.erasureId],
    );
    if (!row) return undefined;
    const state = row.subject ? readState(row.subject) : undefined;
    if (row.status === 'expired' || (row.status === 'previewed' && input.now.getTime() - (state?.preview?.previewedAt ?? 0) >= PREVIEW_TTL_MS)) {
      throw new ErasureStateError(`Erasure "${input.erasureId}" is a preview that expired (previews can be confirmed for ${PREVIEW_TTL_MS / 3600_000} hours): ask for a new one`);
    }
    if (row.status !== 'previewed' || !state?.dryRun) {
      throw new ErasureStateError(
        row.status === 'queued' || row.status === 'running'
          ? `Erasure "${input.erasureId}" is ${state?.dryRun ? 'a preview still being prepared: confirm it once its status is "previewed"' : `already ${row.status}: it was not a dry run or is confirmed already`}`
          : `Erasure "${input.erasureId}" is ${row.status}: only a preview (status "previewed") can be confirmed`,
      );
    }
    const offered = new Map(offeredNames(state).map((o) => [foldName(o.name), o]));
    const names: string[] = [];
    for (const [i, name] of input.names.entries()) {
      const o = offered.get(foldName(name));
      if (!o) throw new ErasureInputError(`names[${i}]: ${JSON.stringify(name)} was not offered by this preview (only names found beside the person's address or id can be confirmed)`);
      if (o.shared) throw new ErasureInputError(`names[${i}]: ${JSON.stringify(name)} is shared with ${o.sharedWith} other participant${o.sharedWith === 1 ? '' : 's'} and is never looked for`);
      if (!names.some((n) => foldName(n) === foldName(o.name))) names.push(o.name);
    }
    const next = newState(state.given, false, names);
    const { rows } = await client.query<Row>(
      `UPDATE erasure_requests SET status = 'queued', phase = 'discover_records', cursor = '', counts = '{}', subject = $3, error = NULL,
              requested_by_user_id = $4, requested_by_key_id = $5, requested_by = $6, updated_at = $7
        WHERE workspace_id = $1 AND id = $2 RETURNING ${ERASURE_COLUMNS}`,
      [input.workspaceId, input.erasureId, JSON.stringify(next), input.by.userId ?? null, input.by.keyId ?? null, input.by.label, input.now],
    );
    for (const email of state.given.emails) await addSuppression(client, { workspaceId: input.workspaceId, kind: 'email', value: email, erasureId: input.erasureId, by: input.by.label, now: input.now });
    for (const pid of state.given.ids) await addSuppression(client, { workspaceId: input.workspaceId, kind: 'participant_id', value: pid, erasureId: input.erasureId, by: input.by.label, now: input.now });
    await enqueue(boss, QUEUES.erasePerson, { workspaceId: input.workspaceId, erasureId: input.erasureId }, { client });
    return erasureView(rows[0]!);
  });
}

/** One request; a finished preview comes with what it found (`preview`). */
export async function getErasure(db: Queryable, workspaceId: string, id: string): Promise<ErasureView | undefined> {
  const { rows } = await db.query<Row & { subject: unknown }>(`SELECT ${ERASURE_COLUMNS}, subject FROM erasure_requests WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  const row = rows[0];
  if (!row) return undefined;
  const view = erasureView(row);
  if (row.status !== 'previewed' || !row.subject) return view;
  const state = readState(row.subject);
  const mentions = state.preview?.mentions ?? {};
  return {
    ...view,
    preview: {
      counts: row.counts,
      samples: state.preview?.samples ?? [],
      identifiers: foundIdentifiers(state),
      names: offeredNames(state).map((o) => ({ ...o, mentions: o.shared ? null : mentions[o.name] ?? 0 })),
      expiresAt: new Date((state.preview?.previewedAt ?? 0) + PREVIEW_TTL_MS),
    },
  };
}

/** The workspace's erasure requests, newest first: the audit log of who asked and when. */
export async function listErasures(db: Queryable, workspaceId: string, limit = 50): Promise<ErasureView[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${ERASURE_COLUMNS} FROM erasure_requests WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [workspaceId, Math.min(Math.max(limit, 1), 500)],
  );
  return rows.map(erasureView);
}
