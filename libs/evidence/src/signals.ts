import { createHash } from 'node:crypto';
import type pg from 'pg';
import { newId, withTransaction } from '@loupe/db';
import type { Clock } from '@loupe/http';
import { companyOf } from './companies';
import { participantNamed } from './speaker';
import { resolveSignalCompanies } from './company-resolution';
import { SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError } from './errors';
import { listSignalTypes, matchType, type SignalType } from './signal-types';

export interface NewSignal {
  type: string;
  title: string;
  content: string;
  whoSaidIt?: string | undefined;
  participantId?: string | undefined;
  createdAt?: Date | undefined;
  /** A 3–6 word theme the calling model may give; it helps place the signal. */
  theme?: string | undefined;
}

export interface SignalView {
  id: string;
  sourceId: string;
  productId: string;
  type: string;
  typeName: string;
  title: string;
  content: string;
  whoSaidIt: string | null;
  participantId: string | null;
  theme: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const normalise = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
const contentHash = (typeId: string, content: string) => createHash('sha256').update(`${typeId}\n${normalise(content)}`).digest('hex');

function unknownType(given: string, types: readonly SignalType[]): UnknownSignalTypeError {
  const active = types.filter((t) => t.active).map((t) => `${t.key} (${t.name})`).join(', ');
  return new UnknownSignalTypeError(`Unknown signal type "${given}": use one of the workspace's active types: ${active}.`);
}

/**
 * Records signals from one source, all or nothing. The same source, type and content (whitespace and
 * case aside) is the same signal: it comes back with `reused: true`. Returns the products whose
 * opportunities should be recomputed.
 */
export async function addSignals(
  pool: pg.Pool,
  input: { workspaceId: string; sourceId: string; items: NewSignal[]; writtenBy?: { keyId?: string | undefined; clientId?: string | undefined } },
  clock: Clock,
): Promise<{ results: Array<{ id: string; reused: boolean }>; productIds: string[] }> {
  const types = await listSignalTypes(pool, input.workspaceId);
  const typed = input.items.map((item) => {
    const type = matchType(types, item.type);
    if (!type) throw unknownType(item.type, types);
    return { item, type };
  });
  return withTransaction(pool, async (client) => {
    // The source's participants (up to thousands) are read only when a speaker is named without an id.
    const byName = input.items.some((item) => !item.participantId?.trim() && item.whoSaidIt?.trim());
    const { rows: sources } = await client.query<{ product_id: string; occurred_at: Date; participants: unknown }>(
      'SELECT product_id, occurred_at, CASE WHEN $3 THEN participants END AS participants FROM sources WHERE workspace_id = $1 AND id = $2',
      [input.workspaceId, input.sourceId, byName],
    );
    const source = sources[0];
    if (!source) throw new SourceNotFoundError(`Source not found or access denied: ${input.sourceId} is not a source of this workspace. Use find_sources to look sources up.`);
    const now = new Date(clock.now());
    const results: Array<{ id: string; reused: boolean }> = [];
    for (const { item, type } of typed) {
      const hash = contentHash(type.id, item.content);
      const participantId = item.participantId?.trim() || participantNamed(source.participants, item.whoSaidIt) || null;
      const { rows } = await client.query<{ id: string; inserted: boolean }>(
        `WITH ins AS (
           INSERT INTO signals (id, workspace_id, product_id, source_id, type_id, title, content, who_said_it, participant_id, content_hash, created_at, updated_at, theme, company,
                                written_by_key_id, written_by_client_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
           ON CONFLICT (workspace_id, source_id, type_id, content_hash) DO NOTHING RETURNING id)
         SELECT id, true AS inserted FROM ins
         UNION ALL SELECT id, false FROM signals WHERE workspace_id = $2 AND source_id = $4 AND type_id = $5 AND content_hash = $10 AND NOT EXISTS (SELECT 1 FROM ins)`,
        [newId('sig', clock.now()), input.workspaceId, source.product_id, input.sourceId, type.id, item.title.trim(), item.content.trim(),
          item.whoSaidIt?.trim() || null, participantId, hash, item.createdAt ?? source.occurred_at, now,
          item.theme?.trim() || null, companyOf(participantId, item.whoSaidIt), input.writtenBy?.keyId ?? null, input.writtenBy?.clientId ?? null],
      );
      let row = rows[0];
      if (!row) {
        // A concurrent call stored the same signal after this statement's snapshot: read it now.
        const { rows: again } = await client.query<{ id: string }>(
          'SELECT id FROM signals WHERE workspace_id = $1 AND source_id = $2 AND type_id = $3 AND content_hash = $4',
          [input.workspaceId, input.sourceId, type.id, hash],
        );
        row = { id: again[0]!.id, inserted: false };
      }
      results.push({ id: row.id, reused: !row.inserted });
    }
    // The company each new signal's speaker resolves to, in the same transaction.
    await resolveSignalCompanies(client, input.workspaceId, results.filter((r) => !r.reused).map((r) => r.id));
    return { results, productIds: results.some((r) => !r.reused) ? [source.product_id] : [] };
  });
}

export interface SignalUpdate {
  id: string;
  title?: string | undefined;
  content?: string | undefined;
  type?: string | undefined;
  createdAt?: Date | undefined;
  /** null clears it. */
  whoSaidIt?: string | null | undefined;
  /** null clears it. */
  participantId?: string | null | undefined;
  /** null clears it. */
  theme?: string | null | undefined;
}

/**
 * Edits signals, all or nothing; omitted fields stay. A change of title, content or theme puts the signal
 * back in its product's queue to be embedded and placed again. Returns the products to update.
 */
export async function updateSignals(pool: pg.Pool, workspaceId: string, updates: SignalUpdate[], clock: Clock): Promise<{ updated: string[]; productIds: string[] }> {
  return updateSignalsWith(pool, workspaceId, updates, clock);
}

/** The fields of a signal a change can touch, before and after it (for the record of a person's edit). */
export interface SignalChangeFields {
  id: string;
  before: Record<string, string | null>;
  after: Record<string, string | null>;
}

/** updateSignals, calling `changed` inside the transaction for each signal updated. */
export async function updateSignalsWith(
  pool: pg.Pool, workspaceId: string, updates: SignalUpdate[], clock: Clock,
  changed?: (client: pg.PoolClient, change: SignalChangeFields) => Promise<void>,
): Promise<{ updated: string[]; productIds: string[] }> {
  const types = await listSignalTypes(pool, workspaceId);
  return withTransaction(pool, async (client) => {
    const products = new Set<string>();
    const now = new Date(clock.now());
    for (const u of updates) {
      const { rows } = await client.query<{ type_id: string; title: string; content: string; theme: string | null; product_id: string; who_said_it: string | null; participant_id: string | null }>(
        'SELECT type_id, title, content, theme, product_id, who_said_it, participant_id FROM signals WHERE workspace_id = $1 AND id = $2 FOR UPDATE',
        [workspaceId, u.id],
      );
      const current = rows[0];
      if (!current) throw new SignalNotFoundError(`Signal ${u.id} does not exist or you are not allowed to access it. Nothing was changed.`);
      let typeId = current.type_id;
      if (u.type !== undefined) {
        const type = matchType(types, u.type);
        if (!type) throw unknownType(u.type, types);
        typeId = type.id;
      }
      const content = u.content?.trim() ?? current.content;
      const title = u.title?.trim() ?? current.title;
      const theme = u.theme === undefined ? current.theme : u.theme?.trim() || null;
      const whoSaidIt = u.whoSaidIt === undefined ? current.who_said_it : u.whoSaidIt;
      const participantId = u.participantId === undefined ? current.participant_id : u.participantId;
      const replace = title !== current.title || content !== current.content || theme !== current.theme;
      await client.query(
        `UPDATE signals SET title = $3, content = $4, type_id = $5, content_hash = $6,
                created_at = COALESCE($7, created_at), who_said_it = $8, participant_id = $9, theme = $10, company = $11,
                embedding_version = CASE WHEN $12 THEN NULL ELSE embedding_version END,
                cluster_pending = cluster_pending OR $12 OR type_id <> $5 OR company IS DISTINCT FROM $11,
                updated_at = $13
          WHERE workspace_id = $1 AND id = $2`,
        [workspaceId, u.id, title, content, typeId, contentHash(typeId, content), u.createdAt ?? null,
          whoSaidIt, participantId, theme, companyOf(participantId, whoSaidIt), replace, now],
      );
      // Another speaker may be of another company: its opportunity's figures follow when it is placed again.
      if ((await resolveSignalCompanies(client, workspaceId, [u.id])).length) {
        await client.query('UPDATE signals SET cluster_pending = true WHERE workspace_id = $1 AND id = $2', [workspaceId, u.id]);
      }
      if (changed) {
        const typeKey = (id: string) => types.find((t) => t.id === id)?.key ?? id;
        await changed(client, {
          id: u.id,
          before: { title: current.title, content: current.content, type: typeKey(current.type_id), who_said_it: current.who_said_it, theme: current.theme },
          after: { title, content, type: typeKey(typeId), who_said_it: whoSaidIt, theme },
        });
      }
      products.add(current.product_id);
    }
    return { updated: updates.map((u) => u.id), productIds: [...products] };
  });
}

const SIGNAL_SELECT = `SELECT s.id, s.source_id, s.product_id, t.key AS type, t.name AS type_name, s.title, s.content, s.who_said_it,
       s.participant_id, s.theme, s.created_at, s.updated_at FROM signals s JOIN signal_types t ON t.id = s.type_id AND t.workspace_id = s.workspace_id`;

type SignalRow = { id: string; source_id: string; product_id: string; type: string; type_name: string; title: string; content: string; who_said_it: string | null; participant_id: string | null; theme: string | null; created_at: Date; updated_at: Date };
const toView = (r: SignalRow): SignalView => ({
  id: r.id, sourceId: r.source_id, productId: r.product_id, type: r.type, typeName: r.type_name, title: r.title, content: r.content,
  whoSaidIt: r.who_said_it, participantId: r.participant_id, theme: r.theme, createdAt: r.created_at, updatedAt: r.updated_at,
});

export async function getSignal(db: Pick<pg.Pool, 'query'>, workspaceId: string, id: string): Promise<SignalView | undefined> {
  const { rows } = await db.query<SignalRow>(`${SIGNAL_SELECT} WHERE s.workspace_id = $1 AND s.id = $2`, [workspaceId, id]);
  return rows[0] ? toView(rows[0]) : undefined;
}

/** The product's signals by (created_at, id); only the given ids when `ids` is passed. */
export async function listSignalsOfProduct(db: Pick<pg.Pool, 'query'>, workspaceId: string, productId: string, ids?: readonly string[]): Promise<SignalView[]> {
  const { rows } = await db.query<SignalRow>(
    `${SIGNAL_SELECT} WHERE s.workspace_id = $1 AND s.product_id = $2 AND ($3::text[] IS NULL OR s.id = ANY($3)) ORDER BY s.created_at, s.id`,
    [workspaceId, productId, ids ?? null],
  );
  return rows.map(toView);
}

export async function listSignalsOfSource(db: Pick<pg.Pool, 'query'>, workspaceId: string, sourceId: string): Promise<SignalView[]> {
  const { rows } = await db.query<SignalRow>(`${SIGNAL_SELECT} WHERE s.workspace_id = $1 AND s.source_id = $2 ORDER BY s.created_at, s.id`, [workspaceId, sourceId]);
  return rows.map(toView);
}
