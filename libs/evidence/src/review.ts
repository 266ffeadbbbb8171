/**
 * A person's corrections to the signals an AI wrote (the account pages): edit, move to another
 * opportunity, delete, mark "not a signal". Each is recorded in signal_changes with who made it, and
 * each is visible at once to every reader: a move or a delete updates the opportunities' counts in
 * the same transaction, and a moved signal is pinned so the clustering keeps it where it was put.
 */
import type pg from 'pg';
import { newId, withTransaction } from '@loupe/db';
import type { Clock } from '@loupe/http';
import { withoutCommon } from '@loupe/semantics';
import { addChanges, loadClusteringState } from './clustering-state';
import { EvidenceError, SignalNotFoundError } from './errors';
import { lockProduct, refreshCounts } from './opportunities';
import { updateSignalsWith, type SignalUpdate } from './signals';

/** The person making the change. */
export interface Reviewer {
  userId: string;
  email: string;
}

export const SIGNAL_ACTIONS = ['edit', 'move', 'delete', 'not_a_signal'] as const;
export type SignalAction = (typeof SIGNAL_ACTIONS)[number];

export class OpportunityNotFoundError extends EvidenceError {}

async function record(client: pg.PoolClient, workspaceId: string, signalId: string, action: SignalAction, by: Reviewer, detail: Record<string, unknown>, now: Date) {
  await client.query(
    `INSERT INTO signal_changes (id, workspace_id, signal_id, action, by_user_id, by_email, detail, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [newId('sch', now.getTime()), workspaceId, signalId, action, by.userId, by.email, JSON.stringify(detail), now],
  );
}

/** Edits one signal (see updateSignals), recording the fields before and after. Returns the products to update. */
export async function editSignal(pool: pg.Pool, workspaceId: string, update: SignalUpdate, by: Reviewer, clock: Clock): Promise<{ productIds: string[] }> {
  const now = new Date(clock.now());
  const out = await updateSignalsWith(pool, workspaceId, [update], clock, async (client, change) => {
    const changed = Object.keys(change.after).filter((k) => change.before[k] !== change.after[k]);
    if (changed.length === 0) return;
    const pick = (o: Record<string, unknown>) => Object.fromEntries(changed.map((k) => [k, o[k]]));
    await record(client, workspaceId, change.id, 'edit', by, { before: pick(change.before), after: pick(change.after) }, now);
  });
  return { productIds: out.productIds };
}

type Member = { id: string; product_id: string; embedding: Buffer | null; embedding_version: string | null; opportunity_id: string | null };

/**
 * Keeps the opportunities' member sums (what incremental placement compares a new signal with) true to
 * their members when signals leave (`to` null) or move between them. A signal without a current
 * vector was never added to a sum, so it is not taken out of one.
 */
async function shiftSums(client: pg.PoolClient, workspaceId: string, productId: string, moves: Array<{ member: Member; to: string | null }>) {
  const state = await loadClusteringState(client, workspaceId, productId);
  if (!state) return;
  const ids = [...new Set(moves.flatMap((m) => [m.member.opportunity_id, m.to]).filter((x): x is string => Boolean(x)))];
  const { rows } = await client.query<{ id: string; member_sum: Buffer | null }>(
    'SELECT id, member_sum FROM opportunities WHERE workspace_id = $1 AND product_id = $2 AND id = ANY($3) FOR UPDATE',
    [workspaceId, productId, ids],
  );
  const sums = new Map(rows.filter((r) => r.member_sum).map((r) => [r.id, new Float32Array(new Uint8Array(r.member_sum!).buffer)]));
  for (const { member, to } of moves) {
    if (!member.embedding || member.embedding_version !== state.embeddingVersion) continue;
    const raw = new Float32Array(new Uint8Array(member.embedding).buffer);
    const centred = withoutCommon(raw, state.common);
    const from = member.opportunity_id ? sums.get(member.opportunity_id) : undefined;
    const into = to ? sums.get(to) : undefined;
    if (from?.length === centred.length) for (let d = 0; d < centred.length; d++) from[d]! -= centred[d]!;
    if (into?.length === centred.length) for (let d = 0; d < centred.length; d++) into[d]! += centred[d]!;
  }
  for (const [id, sum] of sums) {
    await client.query('UPDATE opportunities SET member_sum = $3 WHERE workspace_id = $1 AND id = $2', [workspaceId, id, Buffer.from(sum.buffer, sum.byteOffset, sum.byteLength)]);
  }
}

async function membersOf(client: pg.PoolClient, workspaceId: string, ids: readonly string[]): Promise<Member[]> {
  const { rows } = await client.query<Member>(
    `SELECT s.id, s.product_id, s.embedding, s.embedding_version, os.opportunity_id
       FROM signals s LEFT JOIN opportunity_signals os ON os.signal_id = s.id
      WHERE s.workspace_id = $1 AND s.id = ANY($2)`,
    [workspaceId, ids],
  );
  const missing = ids.filter((id) => !rows.some((r) => r.id === id));
  if (missing.length) throw new SignalNotFoundError(`Signal ${missing[0]} does not exist or you are not allowed to access it. Nothing was changed.`);
  return rows;
}

/**
 * Moves signals into an opportunity of their product, all or nothing, and pins them there: placement
 * and re-clustering leave a pinned signal where a person put it. Counts change at once.
 */
export async function moveSignals(pool: pg.Pool, workspaceId: string, signalIds: readonly string[], opportunityId: string, by: Reviewer, clock: Clock): Promise<{ moved: number }> {
  const now = new Date(clock.now());
  return withTransaction(pool, async (client) => {
    const { rows: target } = await client.query<{ product_id: string; title: string }>('SELECT product_id, title FROM opportunities WHERE workspace_id = $1 AND id = $2', [workspaceId, opportunityId]);
    if (!target[0]) throw new OpportunityNotFoundError(`Opportunity ${opportunityId} does not exist in this workspace (it may have been merged into another since the page was shown). Nothing was moved.`);
    const productId = target[0].product_id;
    await lockProduct(client, workspaceId, productId);
    const members = await membersOf(client, workspaceId, signalIds);
    if (members.some((m) => m.product_id !== productId)) {
      throw new OpportunityNotFoundError('A signal can only move to an opportunity of its own product. Nothing was moved.');
    }
    const moving = members.filter((m) => m.opportunity_id !== opportunityId);
    await shiftSums(client, workspaceId, productId, moving.map((member) => ({ member, to: opportunityId })));
    await client.query(
      `INSERT INTO opportunity_signals (opportunity_id, signal_id) SELECT $1, unnest($2::text[])
       ON CONFLICT (signal_id) DO UPDATE SET opportunity_id = EXCLUDED.opportunity_id`,
      [opportunityId, members.map((m) => m.id)],
    );
    await client.query('UPDATE signals SET pinned = true WHERE workspace_id = $1 AND id = ANY($2)', [workspaceId, members.map((m) => m.id)]);
    const touched = [...new Set([opportunityId, ...moving.map((m) => m.opportunity_id).filter((x): x is string => Boolean(x))])];
    await refreshCounts(client, workspaceId, productId, touched, now);
    await addChanges(client, workspaceId, productId, moving.length);
    for (const m of members) {
      await record(client, workspaceId, m.id, 'move', by, { from: m.opportunity_id, to: opportunityId, to_title: target[0].title }, now);
    }
    return { moved: moving.length };
  });
}

/**
 * Deletes signals, all or nothing, keeping their text in the record of the change; `not_a_signal`
 * says the AI was wrong to record it. Their opportunities' counts change at once (an emptied one goes).
 */
export async function deleteSignals(pool: pg.Pool, workspaceId: string, signalIds: readonly string[], by: Reviewer, clock: Clock, action: 'delete' | 'not_a_signal' = 'delete'): Promise<{ deleted: number }> {
  const now = new Date(clock.now());
  return withTransaction(pool, async (client) => {
    const { rows: products } = await client.query<{ product_id: string }>('SELECT DISTINCT product_id FROM signals WHERE workspace_id = $1 AND id = ANY($2) ORDER BY product_id', [workspaceId, signalIds]);
    for (const p of products) await lockProduct(client, workspaceId, p.product_id);
    const members = await membersOf(client, workspaceId, signalIds);
    const { rows: texts } = await client.query<{ id: string; title: string; content: string; type: string; source_id: string; who_said_it: string | null; content_hash: string }>(
      `SELECT s.id, s.title, s.content, t.key AS type, s.source_id, s.who_said_it, s.content_hash
         FROM signals s JOIN signal_types t ON t.id = s.type_id WHERE s.workspace_id = $1 AND s.id = ANY($2)`,
      [workspaceId, signalIds],
    );
    for (const p of products) {
      const mine = members.filter((m) => m.product_id === p.product_id);
      await shiftSums(client, workspaceId, p.product_id, mine.map((member) => ({ member, to: null })));
    }
    await client.query('DELETE FROM signals WHERE workspace_id = $1 AND id = ANY($2)', [workspaceId, signalIds]);
    for (const p of products) {
      const mine = members.filter((m) => m.product_id === p.product_id);
      await refreshCounts(client, workspaceId, p.product_id, [...new Set(mine.map((m) => m.opportunity_id).filter((x): x is string => Boolean(x)))], now);
      await addChanges(client, workspaceId, p.product_id, mine.length);
    }
    for (const t of texts) {
      const m = members.find((x) => x.id === t.id)!;
      const { id, ...detail } = t;
      await record(client, workspaceId, id, action, by, { ...detail, product_id: m.product_id, opportunity_id: m.opportunity_id }, now);
    }
    return { deleted: members.length };
  });
}

export interface SignalChangeView {
  id: string;
  signalId: string;
  action: SignalAction;
  byEmail: string;
  detail: Record<string, unknown>;
  createdAt: Date;
}

/** The changes people made, newest first: of one signal, or of the workspace. */
export async function listSignalChanges(db: Pick<pg.Pool, 'query'>, workspaceId: string, options: { signalId?: string; limit?: number } = {}): Promise<SignalChangeView[]> {
  const { rows } = await db.query<{ id: string; signal_id: string; action: SignalAction; by_email: string; detail: Record<string, unknown>; created_at: Date }>(
    `SELECT id, signal_id, action, by_email, detail, created_at FROM signal_changes
      WHERE workspace_id = $1 AND ($2::text IS NULL OR signal_id = $2) ORDER BY created_at DESC, id DESC LIMIT $3`,
    [workspaceId, options.signalId ?? null, options.limit ?? 20],
  );
  return rows.map((r) => ({ id: r.id, signalId: r.signal_id, action: r.action, byEmail: r.by_email, detail: r.detail, createdAt: r.created_at }));
}

/**
 * Removes every signal taken from the given sources, inside the caller's transaction (libs/lifecycle
 * deletes the sources with them): their opportunities' member sums and counts change at once, an
 * opportunity left empty goes, one whose central signal went is named after a remaining member, and its
 * keywords keep only words a remaining member still has. The signals' history (signal_changes,
 * including a person's earlier deletes of signals of these sources, which kept their text) goes too:
 * deleting a source leaves nothing of what it said. Returns the products touched, whose clustering
 * counts the change (a re-clustering follows the usual drift rule).
 */
export async function removeSignalsOfSources(client: pg.PoolClient, workspaceId: string, sourceIds: readonly string[], now: Date): Promise<{ removed: number; productIds: string[] }> {
  if (sourceIds.length === 0) return { removed: 0, productIds: [] };
  const { rows: ids } = await client.query<{ id: string; product_id: string }>(
    'SELECT id, product_id FROM signals WHERE workspace_id = $1 AND source_id = ANY($2) ORDER BY id',
    [workspaceId, sourceIds],
  );
  const signalIds = ids.map((r) => r.id);
  const productIds = [...new Set(ids.map((r) => r.product_id))].sort();
  for (const productId of productIds) await lockProduct(client, workspaceId, productId);
  await client.query(
    `DELETE FROM signal_changes WHERE workspace_id = $1 AND (signal_id = ANY($2) OR detail->>'source_id' = ANY($3))`,
    [workspaceId, signalIds, sourceIds],
  );
  if (signalIds.length === 0) return { removed: 0, productIds: [] };
  const members = await membersOf(client, workspaceId, signalIds);
  for (const productId of productIds) {
    await shiftSums(client, workspaceId, productId, members.filter((m) => m.product_id === productId).map((member) => ({ member, to: null })));
  }
  await client.query('DELETE FROM signals WHERE workspace_id = $1 AND id = ANY($2)', [workspaceId, signalIds]);
  for (const productId of productIds) {
    const mine = members.filter((m) => m.product_id === productId);
    const touched = [...new Set(mine.map((m) => m.opportunity_id).filter((x): x is string => Boolean(x)))];
    // Named after a deleted signal: the remaining member written first takes its place.
    await client.query(
      `UPDATE opportunities o SET central_signal_id = x.id, title = x.title, updated_at = $4
         FROM (SELECT DISTINCT ON (os.opportunity_id) os.opportunity_id, s.id, s.title
                 FROM opportunity_signals os JOIN signals s ON s.id = os.signal_id AND s.workspace_id = $1
                WHERE os.opportunity_id = ANY($3) ORDER BY os.opportunity_id, s.created_at, s.id) x
        WHERE o.workspace_id = $1 AND o.product_id = $2 AND o.id = x.opportunity_id
          AND (o.central_signal_id IS NULL OR o.central_signal_id = ANY($5))`,
      [workspaceId, productId, touched, now, signalIds],
    );
    await client.query(
      `UPDATE opportunities o SET keywords = ARRAY(SELECT k FROM unnest(o.keywords) WITH ORDINALITY AS k(k, i)
                WHERE EXISTS (SELECT 1 FROM opportunity_signals os JOIN signals s ON s.id = os.signal_id WHERE os.opportunity_id = o.id AND k.k = ANY(s.keywords))
                ORDER BY k.i)
        WHERE o.workspace_id = $1 AND o.product_id = $2 AND o.id = ANY($3)`,
      [workspaceId, productId, touched],
    );
    await refreshCounts(client, workspaceId, productId, touched, now);
    await addChanges(client, workspaceId, productId, mine.length);
  }
  return { removed: signalIds.length, productIds };
}
