import type pg from 'pg';
import type { QuotesVerified } from './quotes';
import type { StoredQuote } from './signal-quotes';

/** Signals by how their quotes were checked: a QuotesVerified value, not_found (some or none found), or unchecked (written before checks). */
export const VERIFIED_FILTERS = ['all', 'some', 'none', 'no_quote', 'not_found', 'unchecked'] as const;
export type VerifiedFilter = (typeof VERIFIED_FILTERS)[number];

/** Which signals a list shows; every field narrows it. */
export interface SignalFilter {
  productId?: string | undefined;
  /** A signal type key (need, pain_point, …). */
  type?: string | undefined;
  sourceId?: string | undefined;
  opportunityId?: string | undefined;
  /** Written with this API key, or by this connected application (OAuth client id). */
  keyId?: string | undefined;
  clientId?: string | undefined;
  /** One signal (its page). */
  signalId?: string | undefined;
  verified?: VerifiedFilter | undefined;
}

export interface SignalListItem {
  id: string;
  productId: string;
  sourceId: string;
  sourceTitle: string | null;
  type: string;
  typeName: string;
  title: string;
  content: string;
  whoSaidIt: string | null;
  /** The speaker's email domain (kept when no company is known). */
  company: string | null;
  /** The company of the workspace it resolved to (issue 44), when one did. */
  companyId: string | null;
  companyName: string | null;
  theme: string | null;
  createdAt: Date;
  updatedAt: Date;
  opportunityId: string | null;
  opportunityTitle: string | null;
  pinned: boolean;
  writtenByKeyId: string | null;
  writtenByClientId: string | null;
  quote: string | null;
  quotes: StoredQuote[] | null;
  quotesVerified: QuotesVerified | null;
}

/** Where the next page starts: the last row's (created_at, id), newest first. */
export interface SignalCursor {
  createdAt: Date;
  id: string;
}

export const encodeCursor = (c: SignalCursor) => `${c.createdAt.toISOString()}~${c.id}`;
export function decodeCursor(text: string | undefined): SignalCursor | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)~([\w-]{1,128})$/.exec(text ?? '');
  return m ? { createdAt: new Date(m[1]!), id: m[2]! } : undefined;
}

/**
 * A workspace's signals newest first, a page at a time (keyset on created_at, id: the index
 * signals (workspace_id, created_at DESC, id DESC), or (workspace_id, product_id, created_at DESC) with a product).
 */
export async function listRecentSignals(
  db: Pick<pg.Pool, 'query'>,
  workspaceId: string,
  filter: SignalFilter,
  page: { limit: number; after?: SignalCursor | undefined },
): Promise<{ items: SignalListItem[]; next?: SignalCursor }> {
  const { rows } = await db.query<{
    id: string; product_id: string; source_id: string; source_title: string | null; type: string; type_name: string; title: string; content: string;
    who_said_it: string | null; company: string | null; company_id: string | null; company_name: string | null; theme: string | null; created_at: Date; updated_at: Date; opportunity_id: string | null;
    opportunity_title: string | null; pinned: boolean; written_by_key_id: string | null; written_by_client_id: string | null;
    quote: string | null; quotes: StoredQuote[] | null; quotes_verified: QuotesVerified | null;
  }>(
    `SELECT s.id, s.product_id, s.source_id, src.title AS source_title, t.key AS type, t.name AS type_name, s.title, s.content, s.who_said_it, s.company,
            c.id AS company_id, c.name AS company_name, s.theme, s.created_at, s.updated_at, os.opportunity_id, o.title AS opportunity_title, s.pinned, s.written_by_key_id, s.written_by_client_id,
            s.quote, s.quotes, s.quotes_verified
       FROM signals s
       JOIN signal_types t ON t.id = s.type_id AND t.workspace_id = s.workspace_id
       LEFT JOIN sources src ON src.id = s.source_id AND src.workspace_id = s.workspace_id
       LEFT JOIN companies c ON c.id = s.company_id AND c.workspace_id = s.workspace_id
       LEFT JOIN opportunity_signals os ON os.signal_id = s.id
       LEFT JOIN opportunities o ON o.id = os.opportunity_id AND o.workspace_id = s.workspace_id
      WHERE s.workspace_id = $1
        AND ($2::text IS NULL OR s.product_id = $2)
        AND ($3::text IS NULL OR t.key = $3)
        AND ($4::text IS NULL OR s.source_id = $4)
        AND ($5::text IS NULL OR os.opportunity_id = $5)
        AND ($6::text IS NULL OR s.written_by_key_id = $6)
        AND ($7::text IS NULL OR s.written_by_client_id = $7)
        AND ($8::timestamptz IS NULL OR (s.created_at, s.id) < ($8, $9))
        AND ($11::text IS NULL OR s.id = $11)
        AND ($12::text IS NULL OR s.quotes_verified = $12 OR ($12 = 'not_found' AND s.quotes_verified IN ('some', 'none')) OR ($12 = 'unchecked' AND s.quotes_verified IS NULL))
      ORDER BY s.created_at DESC, s.id DESC
      LIMIT $10`,
    [workspaceId, filter.productId ?? null, filter.type ?? null, filter.sourceId ?? null, filter.opportunityId ?? null, filter.keyId ?? null,
      filter.clientId ?? null, page.after?.createdAt ?? null, page.after?.id ?? '', page.limit + 1, filter.signalId ?? null, filter.verified ?? null],
  );
  const items = rows.slice(0, page.limit).map((r) => ({
    id: r.id, productId: r.product_id, sourceId: r.source_id, sourceTitle: r.source_title, type: r.type, typeName: r.type_name, title: r.title, content: r.content,
    whoSaidIt: r.who_said_it, company: r.company, companyId: r.company_id, companyName: r.company_name, theme: r.theme, createdAt: r.created_at, updatedAt: r.updated_at, opportunityId: r.opportunity_id,
    opportunityTitle: r.opportunity_title, pinned: r.pinned, writtenByKeyId: r.written_by_key_id, writtenByClientId: r.written_by_client_id,
    quote: r.quote, quotes: r.quotes, quotesVerified: r.quotes_verified,
  }));
  const last = items[items.length - 1];
  return rows.length > page.limit && last ? { items, next: { createdAt: last.createdAt, id: last.id } } : { items };
}

/**
 * Per opportunity, how many of its signals were recorded or edited in the last 7 and 30 days: its growth
 * (the MCP get_opportunities and the opportunities page read the same numbers).
 */
export async function opportunityGrowth(db: Pick<pg.Pool, 'query'>, workspaceId: string, ids: readonly string[], now: Date): Promise<Map<string, { week: number; month: number }>> {
  if (ids.length === 0) return new Map();
  const week = new Date(now.getTime() - 7 * 86_400_000);
  const month = new Date(now.getTime() - 30 * 86_400_000);
  const { rows } = await db.query<{ id: string; week: number; month: number }>(
    `SELECT os.opportunity_id AS id, count(*) FILTER (WHERE s.updated_at >= $3)::int AS week, count(*)::int AS month
       FROM opportunity_signals os JOIN signals s ON s.id = os.signal_id AND s.workspace_id = $1
      WHERE os.opportunity_id = ANY($2) AND s.updated_at >= $4 GROUP BY os.opportunity_id`,
    [workspaceId, ids, week, month],
  );
  return new Map(rows.map((r) => [r.id, { week: r.week, month: r.month }]));
}
