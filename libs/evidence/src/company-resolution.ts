/**
 * Which company a signal's speaker belongs to (issue 44). In order:
 *  1. a person of the workspace: the one whose email is the participant id's email, else whose
 *     external_id is the participant id, else whose email is the email in who_said_it;
 *  2. that person's company, when the team gave one (it wins over any domain, a free-mail address too);
 *  3. else the company of the workspace that lists the speaker's email domain (`signals.company`, or
 *     the matched person's email domain): free-mail domains never resolve.
 * One set-based statement serves both the write path (the signals just written, in their transaction)
 * and the background re-resolution after companies or people change (a workspace in keyset slices).
 * `signals.company` (the domain) stays as it is: it counts a speaker whose company is unknown.
 */
import type pg from 'pg';
import { withTransaction } from '@loupe/db';
import type { Clock } from '@loupe/http';
import { FREE_MAIL } from './companies';
import { refreshImpact } from './impact';
import { lockProduct } from './product-lock';

type Db = Pick<pg.PoolClient, 'query'>;

/** The speaker's email at the end of a participant id or who_said_it ("Ana <ana@acme.com>"), as companyOf reads the domain. */
const EMAIL_PATTERN = '([^[:space:]<>"\'(),;:]+@[a-z0-9.-]+\\.[a-z]{2,})[[:space:]]*>?$';

/** Signals re-resolved per statement (and per transaction) in the background. */
export const RESOLVE_SLICE = 5_000;
/** Opportunities whose impact is recomputed per statement in the background. */
const IMPACT_SLICE = 500;

/**
 * Sets `company_id` of the given signals of the workspace to the company they resolve to; returns the
 * ids whose company changed, with their opportunity (null when not placed yet).
 */
export async function resolveSignalCompanies(db: Db, workspaceId: string, signalIds: readonly string[]): Promise<Array<{ id: string; opportunityId: string | null }>> {
  if (signalIds.length === 0) return [];
  const { rows } = await db.query<{ id: string; opportunity_id: string | null }>(
    `WITH resolved AS (
       SELECT s.id, COALESCE(pc.id, dc.company_id) AS company_id
         FROM signals s
         LEFT JOIN LATERAL (
           SELECT m.company_id, m.email FROM (
             SELECT p.company_id, p.email, 1 AS rank FROM people p
              WHERE p.workspace_id = s.workspace_id AND p.email = substring(lower(btrim(s.participant_id)) from $3)
             UNION ALL
             SELECT p.company_id, p.email, 2 FROM people p WHERE p.workspace_id = s.workspace_id AND p.external_id = btrim(s.participant_id)
             UNION ALL
             SELECT p.company_id, p.email, 3 FROM people p
              WHERE p.workspace_id = s.workspace_id AND p.email = substring(lower(btrim(s.who_said_it)) from $3)
           ) m ORDER BY m.rank LIMIT 1
         ) person ON true
         LEFT JOIN companies pc ON pc.id = person.company_id AND pc.workspace_id = s.workspace_id
         LEFT JOIN company_domains dc ON dc.workspace_id = s.workspace_id AND dc.domain = COALESCE(
           s.company,
           CASE WHEN split_part(person.email, '@', 2) <> '' AND NOT (split_part(person.email, '@', 2) = ANY($4::text[])) THEN split_part(person.email, '@', 2) END)
        WHERE s.workspace_id = $1 AND s.id = ANY($2::text[])
     ), changed AS (
       UPDATE signals s SET company_id = r.company_id FROM resolved r
        WHERE s.workspace_id = $1 AND s.id = r.id AND s.id = ANY($2::text[]) AND s.company_id IS DISTINCT FROM r.company_id
        RETURNING s.id
     )
     SELECT c.id, os.opportunity_id FROM changed c LEFT JOIN opportunity_signals os ON os.signal_id = c.id`,
    [workspaceId, signalIds, EMAIL_PATTERN, [...FREE_MAIL]],
  );
  return rows.map((r) => ({ id: r.id, opportunityId: r.opportunity_id }));
}

export interface ResolutionResult {
  /** Signals of the workspace read. */
  signals: number;
  /** Signals whose company changed. */
  changed: number;
  /** Opportunities whose impact figures changed. */
  opportunities: number;
}

/**
 * Re-resolves every signal of the workspace (after companies or people changed), RESOLVE_SLICE at a time
 * by id, each slice one short transaction under its products' clustering locks (so a re-clustering or a
 * person's move never writes at the same time); then recomputes the impact of the workspace's
 * opportunities a slice at a time, writing those whose figures changed (a company's ARR or segment may
 * have changed without any signal changing company).
 */
export async function resolveWorkspaceCompanies(
  pool: pg.Pool, workspaceId: string, clock: Clock, options: { slice?: number; signal?: AbortSignal } = {},
): Promise<ResolutionResult> {
  const slice = options.slice ?? RESOLVE_SLICE;
  let signals = 0;
  let changed = 0;
  for (let after = '';;) {
    options.signal?.throwIfAborted();
    const { rows } = await pool.query<{ id: string; product_id: string }>(
      'SELECT id, product_id FROM signals WHERE workspace_id = $1 AND id > $2 ORDER BY id LIMIT $3',
      [workspaceId, after, slice],
    );
    if (rows.length === 0) break;
    const ids = rows.map((r) => r.id);
    changed += await withTransaction(pool, async (client) => {
      for (const productId of [...new Set(rows.map((r) => r.product_id))].sort()) await lockProduct(client, workspaceId, productId);
      return (await resolveSignalCompanies(client, workspaceId, ids)).length;
    });
    signals += rows.length;
    after = ids[ids.length - 1]!;
  }
  let opportunities = 0;
  const now = new Date(clock.now());
  for (let after = '';;) {
    options.signal?.throwIfAborted();
    const { rows } = await pool.query<{ id: string; product_id: string }>(
      'SELECT id, product_id FROM opportunities WHERE workspace_id = $1 AND id > $2 ORDER BY id LIMIT $3',
      [workspaceId, after, IMPACT_SLICE],
    );
    if (rows.length === 0) break;
    opportunities += await withTransaction(pool, async (client) => {
      for (const productId of [...new Set(rows.map((r) => r.product_id))].sort()) await lockProduct(client, workspaceId, productId);
      return refreshImpact(client, workspaceId, rows.map((r) => r.id), now);
    });
    after = rows[rows.length - 1]!.id;
  }
  return { signals, changed, opportunities };
}
