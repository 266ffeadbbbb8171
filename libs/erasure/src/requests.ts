import { newId, withTransaction } from '@loupe/db';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import type pg from 'pg';
import { normaliseSubject, subjectHash, type Subject, type SubjectKind } from './match';
import { addSuppression } from './suppressions';

type Queryable = Pick<pg.Pool, 'query'>;

export const ERASURE_STATUSES = ['queued', 'running', 'complete', 'failed'] as const;
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
  other?: number;
}

/** An erasure request as every surface shows it: never the email, id or names it looks for. */
export interface ErasureView {
  id: string;
  status: ErasureStatus;
  phase: string;
  subjectKind: SubjectKind;
  counts: ErasureCounts;
  requestedBy: string;
  requestedByUserId: string | null;
  requestedByKeyId: string | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

type Row = {
  id: string; status: ErasureStatus; phase: string; subject_kind: SubjectKind; counts: ErasureCounts; requested_by: string;
  requested_by_user_id: string | null; requested_by_key_id: string | null; error: string | null; created_at: Date; updated_at: Date; completed_at: Date | null;
};
export const ERASURE_COLUMNS = 'id, status, phase, subject_kind, counts, requested_by, requested_by_user_id, requested_by_key_id, error, created_at, updated_at, completed_at';
export const erasureView = (r: Row): ErasureView => ({
  id: r.id, status: r.status, phase: r.phase, subjectKind: r.subject_kind, counts: r.counts, requestedBy: r.requested_by,
  requestedByUserId: r.requested_by_user_id, requestedByKeyId: r.requested_by_key_id, error: r.error,
  createdAt: r.created_at, updatedAt: r.updated_at, completedAt: r.completed_at,
});

export class ErasureInputError extends Error {
  override name = 'ErasureInputError';
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Checks what an erasure is asked for: an email, a participant id, or both (the same person). */
export function parseErasureInput(input: { email?: unknown; participant_id?: unknown }): { email?: string; participantId?: string } {
  const out: { email?: string; participantId?: string } = {};
  if (input.email !== undefined && input.email !== null && input.email !== '') {
    if (typeof input.email !== 'string' || input.email.length > 320 || !EMAIL.test(input.email.trim())) {
      throw new ErasureInputError('email: must be an email address (at most 320 characters)');
    }
    out.email = normaliseSubject('email', input.email);
  }
  if (input.participant_id !== undefined && input.participant_id !== null && input.participant_id !== '') {
    if (typeof input.participant_id !== 'string' || input.participant_id.trim().length === 0 || input.participant_id.length > 256) {
      throw new ErasureInputError('participant_id: must be a participant id as sent in records (1 to 256 characters)');
    }
    out.participantId = normaliseSubject('participant_id', input.participant_id);
  }
  if (!out.email && !out.participantId) throw new ErasureInputError('Give the person to erase: "email" or "participant_id" (or both)');
  return out;
}

/**
 * Asks for a person's erasure: the request row, a suppression of each identifier given (records naming
 * them are refused from now on) and the worker's job, in one transaction. The job's payload names only
 * the request; what it looks for is in the row until it ends.
 */
export async function requestErasure(
  pool: pg.Pool, boss: Boss,
  input: { workspaceId: string; email?: string | undefined; participantId?: string | undefined; by: Requester; now: Date },
): Promise<ErasureView> {
  const kind: SubjectKind = input.email ? 'email' : 'participant_id';
  const primary = (input.email ?? input.participantId)!;
  const subject: Subject = { emails: input.email ? [input.email] : [], ids: input.participantId ? [input.participantId] : [], names: [] };
  const id = newId('era', input.now.getTime());
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<Row>(
      `INSERT INTO erasure_requests (id, workspace_id, subject_kind, subject_hash, subject, status, phase, requested_by_user_id, requested_by_key_id, requested_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'queued', 'discover_records', $6, $7, $8, $9, $9) RETURNING ${ERASURE_COLUMNS}`,
      [id, input.workspaceId, kind, subjectHash(input.workspaceId, kind, primary), JSON.stringify(subject),
        input.by.userId ?? null, input.by.keyId ?? null, input.by.label, input.now],
    );
    if (input.email) await addSuppression(client, { workspaceId: input.workspaceId, kind: 'email', value: input.email, erasureId: id, by: input.by.label, now: input.now });
    if (input.participantId) {
      await addSuppression(client, { workspaceId: input.workspaceId, kind: 'participant_id', value: input.participantId, erasureId: id, by: input.by.label, now: input.now });
    }
    await enqueue(boss, QUEUES.erasePerson, { workspaceId: input.workspaceId, erasureId: id }, { client });
    return erasureView(rows[0]!);
  });
}

export async function getErasure(db: Queryable, workspaceId: string, id: string): Promise<ErasureView | undefined> {
  const { rows } = await db.query<Row>(`SELECT ${ERASURE_COLUMNS} FROM erasure_requests WHERE workspace_id = $1 AND id = $2`, [workspaceId, id]);
  return rows[0] ? erasureView(rows[0]) : undefined;
}

/** The workspace's erasure requests, newest first: the audit log of who asked and when. */
export async function listErasures(db: Queryable, workspaceId: string, limit = 50): Promise<ErasureView[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${ERASURE_COLUMNS} FROM erasure_requests WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    [workspaceId, Math.min(Math.max(limit, 1), 500)],
  );
  return rows.map(erasureView);
}
