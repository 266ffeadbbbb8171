import type pg from 'pg';

/** Of an opportunity's signals, how many have every quote found in their source (quotes_verified = all). */
export interface QuoteShare {
  verified: number;
  signals: number;
  /** verified / signals, 0 when it has none. */
  share: number;
}

export async function opportunityQuoteShares(db: Pick<pg.Pool, 'query'>, workspaceId: string, ids: readonly string[]): Promise<Map<string, QuoteShare>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; verified: number; signals: number }>(
    `SELECT os.opportunity_id AS id, count(*) FILTER (WHERE s.quotes_verified = 'all')::int AS verified, count(*)::int AS signals
       FROM opportunity_signals os JOIN signals s ON s.id = os.signal_id AND s.workspace_id = $1
      WHERE os.opportunity_id = ANY($2) GROUP BY os.opportunity_id`,
    [workspaceId, ids],
  );
  return new Map(rows.map((r) => [r.id, { verified: r.verified, signals: r.signals, share: r.signals ? r.verified / r.signals : 0 }]));
}

export const NO_QUOTE_SHARE: QuoteShare = { verified: 0, signals: 0, share: 0 };
