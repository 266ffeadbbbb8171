import { createHash } from 'node:crypto';
import type pg from 'pg';
import { newId, withTransaction } from '@loupe/db';
import type { Clock } from '@loupe/http';
import { companyOf } from './companies';
import { participantNamed } from './speaker';
import { resolveSignalCompanies } from './company-resolution';
import { SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError } from './errors';
import { listSignalTypes, matchType, type SignalType } from './signal-types';
import { hasQuotes, readSourceWords, signalQuotes, speakerAliases, type SignalQuotes, type StoredQuote } from './signal-quotes';
import type { QuotesVerified, SourceWords } from './quotes';

export interface NewSignal {
  type: string;
  title: string;
  content: string;
  whoSaidIt?: string | undefined;
  participantId?: string | undefined;
  createdAt?: Date | undefined;
  /** A 3–6 word theme the calling model may give; it helps place the signal. */
  theme?: string | undefined;
  /** The customer's exact words, apart from the content; checked against the source like the content's quotes. */
  quote?: string | undefined;
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
  quote: string | null;
  /** Its quotes checked against the source; null for a signal written before quotes were checked. */
  quotes: StoredQuote[] | null;
  quotesVerified: QuotesVerified | null;
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
): Promise<{ results: Array<{ id: string; reused: boolean } & SignalQuotes>; productIds: string[] }> {
  const types = await listSignalTypes(pool, input.workspaceId);
  const typed = input.items.map((item) => {
    const type = matchType(types, item.type);
    if (!type) throw unknownType(item.type, types);
    return { item, type };
  });
  return withTransaction(pool, async (client) => {
    // The source's participants (up to thousands) are read only when a speaker is named without an id,
    // or a quoted speaker is given only by id (their name is what the source's segments carry).
    const quoted = input.items.map(hasQuotes);
    const byName = input.items.some((item, i) => (!item.participantId?.trim() && item.whoSaidIt?.trim()) || (quoted[i] && item.participantId?.trim() && !item.whoSaidIt?.trim()));
    const { rows: sources } = await client.query<{ product_id: string; occurred_at: Date; participants: unknown }>(
      'SELECT product_id, occurred_at, CASE WHEN $3 THEN participants END AS participants FROM sources WHERE workspace_id = $1 AND id = $2',
      [input.workspaceId, input.sourceId, byName],
    );
    const source = sources[0];
    if (!source) throw new SourceNotFoundError(`Source not found or access denied: ${input.sourceId} is not a source of this workspace. Use find_sources to look sources up.`);
    const now = new Date(clock.now());
    // The source's words, read once for all the call's quotes.
    const words = quoted.some(Boolean) ? await readSourceWords(client, input.sourceId) : undefined;
    const results: Array<{ id: string; reused: boolean } & SignalQuotes> = [];
    for (const [i, { item, type }] of typed.entries()) {
      const hash = contentHash(type.id, item.content);
      const participantId = item.participantId?.trim() || participantNamed(source.participants, item.whoSaidIt) || null;
      const checked = signalQuotes(quoted[i] ? words : undefined, { content: item.content.trim(), quote: item.quote }, speakerAliases(source.participants, item.whoSaidIt?.trim(), participantId));
      const { rows } = await client.query<{ id: string; inserted: boolean; quotes: StoredQuote[] | null; quotes_verified: QuotesVerified | null }>(
        `WITH ins AS (
           INSERT INTO signals (id, workspace_id, product_id, source_id, type_id, title, content, who_said_it, participant_id, content_hash, created_at, updated_at, theme, company,
                                written_by_key_id, written_by_client_id, quote, quotes, quotes_verified)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
           ON CONFLICT (workspace_id, source_id, type_id, content_hash) DO NOTHING RETURNING id)
         SELECT id, true AS inserted, NULL::jsonb AS quotes, NULL AS quotes_verified FROM ins
         UNION ALL SELECT id, false, quotes, quotes_verified FROM signals WHERE workspace_id = $2 AND source_id = $4 AND type_id = $5 AND content_hash = $10 AND NOT EXISTS (SELECT 1 FROM ins)`,
        [newId('sig', clock.now()), input.workspaceId, source.product_id, input.sourceId, type.id, item.title.trim(), item.content.trim(),
          item.whoSaidIt?.trim() || null, participantId, hash, item.createdAt ?? source.occurred_at, now,
          item.theme?.trim() || null, companyOf(participantId, item.whoSaidIt), input.writtenBy?.keyId ?? null, input.writtenBy?.clientId ?? null,
          item.quote?.trim() || null, JSON.stringify(checked.quotes), checked.quotesVerified],
      );
      let row = rows[0];
      if (!row) {
        // A concurrent call stored the same signal after this statement's snapshot: read it now.
        const { rows: again } = await client.query<{ id: string; quotes: StoredQuote[] | null; quotes_verified: QuotesVerified | null }>(
          'SELECT id, quotes, quotes_verified FROM signals WHERE workspace_id = $1 AND source_id = $2 AND type_id = $3 AND content_hash = $4',
          [input.workspaceId, input.sourceId, type.id, hash],
        );
        row = { ...again[0]!, inserted: false };
      }
      // A reused signal answers with the checks stored with it (what its pages show); one from before checks, with these.
      const reusedChecks = !row.inserted && row.quotes && row.quotes_verified ? { quotes: row.quotes, quotesVerified: row.quotes_verified } : undefined;
      results.push({ id: row.id, reused: !row.inserted, ...(reusedChecks ?? checked) });
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
  /** null clears it. */
  quote?: string | null | undefined;
}

/**
 * Edits signals, all or nothing; omitted fields stay. A change of title, content or theme puts the signal
 * back in its product's queue to be embedded and placed again. Returns the products to update.
 */
export async function updateSignals(pool: pg.Pool, workspaceId: string, updates: SignalUpdate[], clock: Clock): Promise<UpdateResult> {
  return updateSignalsWith(pool, workspaceId, updates, clock);
}

/** The fields of a signal a change can touch, before and after it (for the record of a person's edit). */
export interface SignalChangeFields {
  id: string;
  before: Record<string, string | null>;
  after: Record<string, string | null>;
}

export interface UpdateResult {
  updated: string[];
  productIds: string[];
  /** Each updated signal's quotes, checked again against its source. */
  quotes: Array<{ id: string } & SignalQuotes>;
}

/** updateSignals, calling `changed` inside the transaction for each signal updated. */
export async function updateSignalsWith(
  pool: pg.Pool, workspaceId: string, updates: SignalUpdate[], clock: Clock,
  changed?: (client: pg.PoolClient, change: SignalChangeFields) => Promise<void>,
): Promise<UpdateResult> {
  const types = await listSignalTypes(pool, workspaceId);
  return withTransaction(pool, async (client) => {
    const products = new Set<string>();
    const now = new Date(clock.now());
    const sources = new Map<string, { words: SourceWords; participants: unknown }>();
    const sourceOf = async (sourceId: string) => {
      let found = sources.get(sourceId);
      if (!found) {
        const { rows: src } = await client.query<{ participants: unknown }>('SELECT participants FROM sources WHERE workspace_id = $1 AND id = $2', [workspaceId, sourceId]);
        found = { words: await readSourceWords(client, sourceId), participants: src[0]?.participants };
        sources.set(sourceId, found);
      }
      return found;
    };
    const quotes: UpdateResult['quotes'] = [];
    for (const u of updates) {
      const { rows } = await client.query<{
        type_id: string; title: string; content: string; theme: string | null; product_id: string; who_said_it: string | null; participant_id: string | null; source_id: string; quote: string | null;
      }>(
        'SELECT type_id, title, content, theme, product_id, who_said_it, participant_id, source_id, quote FROM signals WHERE workspace_id = $1 AND id = $2 FOR UPDATE',
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
      const quote = u.quote === undefined ? current.quote : u.quote?.trim() || null;
      const replace = title !== current.title || content !== current.content || theme !== current.theme;
      const quoted = hasQuotes({ content, quote });
      const source = quoted ? await sourceOf(current.source_id) : undefined;
      const checked = signalQuotes(source?.words, { content, quote }, speakerAliases(source?.participants, whoSaidIt, participantId));
      quotes.push({ id: u.id, ...checked });
      await client.query(
        `UPDATE signals SET title = $3, content = $4, type_id = $5, content_hash = $6,
                created_at = COALESCE($7, created_at), who_said_it = $8, participant_id = $9, theme = $10, company = $11,
                embedding_version = CASE WHEN $12 THEN NULL ELSE embedding_version END,
                cluster_pending = cluster_pending OR $12 OR type_id <> $5 OR company IS DISTINCT FROM $11,
                updated_at = $13, quote = $14, quotes = $15, quotes_verified = $16
          WHERE workspace_id = $1 AND id = $2`,
        [workspaceId, u.id, title, content, typeId, contentHash(typeId, content), u.createdAt ?? null,
          whoSaidIt, participantId, theme, companyOf(participantId, whoSaidIt), replace, now, quote, JSON.stringify(checked.quotes), checked.quotesVerified],
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
    return { updated: updates.map((u) => u.id), productIds: [...products], quotes };
  });
}

const SIGNAL_SELECT = `SELECT s.id, s.source_id, s.product_id, t.key AS type, t.name AS type_name, s.title, s.content, s.who_said_it,
       s.participant_id, s.theme, s.quote, s.quotes, s.quotes_verified, s.created_at, s.updated_at FROM signals s JOIN signal_types t ON t.id = s.type_id AND t.workspace_id = s.workspace_id`;

type SignalRow = {
  id: string; source_id: string; product_id: string; type: string; type_name: string; title: string; content: string; who_said_it: string | null; participant_id: string | null; theme: string | null;
  quote: string | null; quotes: StoredQuote[] | null; quotes_verified: QuotesVerified | null; created_at: Date; updated_at: Date;
};
const toView = (r: SignalRow): SignalView => ({
  id: r.id, sourceId: r.source_id, productId: r.product_id, type: r.type, typeName: r.type_name, title: r.title, content: r.content,
  whoSaidIt: r.who_said_it, participantId: r.participant_id, theme: r.theme, quote: r.quote, quotes: r.quotes, quotesVerified: r.quotes_verified,
  createdAt: r.created_at, updatedAt: r.updated_at,
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
