/**
 * The impact of opportunities (issue 44): who is behind their evidence and what they are worth.
 *  - companies (`unique_company_count`): distinct companies of its signals, a signal counting its resolved
 *    company, else its email domain (a speaker of a company the team has not sent yet still counts once);
 *  - revenue: the sum of the ARR of the distinct resolved companies, each counted once however many
 *    signals it gave;
 *  - segments, plans, stages: the distinct values of those companies (filters), and in `impact` the split:
 *    companies and ARR per segment, per plan and per stage (null: not given), and how many resolved;
 *  - nearest_renewal: the nearest renewal date among them on or after the day of the computation;
 *  - newest_evidence_at: when its newest signal was said.
 * Computed by one set-based statement for a set of opportunities, and written only where it changed.
 */
import type pg from 'pg';
import { subtitleOf } from './subtitle';

type Db = Pick<pg.PoolClient, 'query'>;

/** A signal's company key: its resolved company, else its domain (null: neither, not counted). */
export const COMPANY_KEY_SQL = (s: string) => `COALESCE('c:' || ${s}.company_id, 'd:' || ${s}.company)`;

/** The split of an opportunity's companies by one attribute. */
export interface ImpactSplit {
  value: string | null;
  companies: number;
  revenue: number;
}

export interface Impact {
  resolved_companies: number;
  segments: ImpactSplit[];
  plans: ImpactSplit[];
  stages: ImpactSplit[];
}

/**
 * Recomputes the impact (and the company count and subtitle) of the given opportunities of the workspace
 * from their signals and the companies they resolve to. Returns how many changed.
 */
export async function refreshImpact(db: Db, workspaceId: string, opportunityIds: readonly string[], now: Date): Promise<number> {
  if (opportunityIds.length === 0) return 0;
  const { rows } = await db.query<{ id: string; evidence_count: number; unique_company_count: number; keywords: string[] | null }>(
    `WITH members AS (
       SELECT os.opportunity_id AS id, s.company_id, s.company, s.created_at
         FROM opportunity_signals os JOIN signals s ON s.id = os.signal_id AND s.workspace_id = $1
        WHERE os.opportunity_id = ANY($2::text[])
     ), counts AS (
       SELECT id, count(DISTINCT ${COMPANY_KEY_SQL('members')})::int AS companies, max(created_at) AS newest FROM members GROUP BY id
     ), comp AS (
       SELECT DISTINCT m.id, c.id AS company_id, c.arr, c.segment, c.plan, c.stage, c.renewal_date
         FROM members m JOIN companies c ON c.id = m.company_id AND c.workspace_id = $1
     ), totals AS (
       SELECT id, COALESCE(sum(arr), 0) AS revenue, count(*)::int AS resolved,
              COALESCE(array_agg(DISTINCT segment ORDER BY segment) FILTER (WHERE segment IS NOT NULL), '{}') AS segments,
              COALESCE(array_agg(DISTINCT plan ORDER BY plan) FILTER (WHERE plan IS NOT NULL), '{}') AS plans,
              COALESCE(array_agg(DISTINCT stage ORDER BY stage) FILTER (WHERE stage IS NOT NULL), '{}') AS stages,
              min(renewal_date) FILTER (WHERE renewal_date >= ($3::timestamptz AT TIME ZONE 'UTC')::date) AS nearest_renewal
         FROM comp GROUP BY id
     ), groups AS (
       SELECT id, 'segments' AS kind, segment AS value, count(*)::int AS n, COALESCE(sum(arr), 0) AS r FROM comp GROUP BY id, segment
       UNION ALL SELECT id, 'plans', plan, count(*)::int, COALESCE(sum(arr), 0) FROM comp GROUP BY id, plan
       UNION ALL SELECT id, 'stages', stage, count(*)::int, COALESCE(sum(arr), 0) FROM comp GROUP BY id, stage
     ), splits AS (
       SELECT id, jsonb_object_agg(kind, list) AS splits FROM (
         SELECT id, kind, jsonb_agg(jsonb_build_object('value', value, 'companies', n, 'revenue', r) ORDER BY r DESC, n DESC, value NULLS LAST) AS list
           FROM groups GROUP BY id, kind) k
        GROUP BY id
     ), next AS (
       SELECT o.id, COALESCE(c.companies, 0) AS companies, COALESCE(t.revenue, 0)::numeric(20, 2) AS revenue,
              COALESCE(t.segments, '{}') AS segments, COALESCE(t.plans, '{}') AS plans, COALESCE(t.stages, '{}') AS stages,
              t.nearest_renewal, c.newest,
              jsonb_build_object('resolved_companies', COALESCE(t.resolved, 0), 'segments', COALESCE(sp.splits->'segments', '[]'),
                                 'plans', COALESCE(sp.splits->'plans', '[]'), 'stages', COALESCE(sp.splits->'stages', '[]')) AS impact
         FROM opportunities o
         LEFT JOIN counts c ON c.id = o.id LEFT JOIN totals t ON t.id = o.id LEFT JOIN splits sp ON sp.id = o.id
        WHERE o.workspace_id = $1 AND o.id = ANY($2::text[])
     )
     UPDATE opportunities o SET unique_company_count = n.companies, revenue = n.revenue, segments = n.segments, plans = n.plans, stages = n.stages,
            nearest_renewal = n.nearest_renewal, newest_evidence_at = n.newest, impact = n.impact
       FROM next n
      WHERE o.workspace_id = $1 AND o.id = n.id AND o.id = ANY($2::text[])
        AND (o.unique_company_count, o.revenue, o.segments, o.plans, o.stages, o.nearest_renewal, o.newest_evidence_at, o.impact)
            IS DISTINCT FROM (n.companies, n.revenue, n.segments, n.plans, n.stages, n.nearest_renewal, n.newest, n.impact)
      RETURNING o.id, o.evidence_count, o.unique_company_count, o.keywords`,
    [workspaceId, opportunityIds, now],
  );
  if (rows.length) {
    await db.query(
      `UPDATE opportunities o SET subtitle = x.subtitle FROM unnest($2::text[], $3::text[]) AS x(id, subtitle)
        WHERE o.workspace_id = $1 AND o.id = x.id AND o.subtitle IS DISTINCT FROM x.subtitle`,
      [workspaceId, rows.map((r) => r.id), rows.map((r) => subtitleOf(r.evidence_count, r.unique_company_count, r.keywords ?? []))],
    );
  }
  return rows.length;
}
