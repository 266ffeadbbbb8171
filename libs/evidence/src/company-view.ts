/**
 * A company as the evidence shows it (issue 44): the company, the opportunities its signals are in (by
 * its share of their signals), its latest sources and signals. Read-only; every query is scoped to the
 * workspace, so another workspace's company is never found.
 */
import type pg from 'pg';

type Db = Pick<pg.Pool, 'query'>;

export interface CompanyRef {
  id: string;
  externalId: string;
  name: string;
}

/**
 * The companies of the workspace a person or a model names: by our id or external id (one), else by name
 * (any case; several companies may share one).
 */
export async function findCompanies(db: Db, workspaceId: string, idOrName: string): Promise<CompanyRef[]> {
  const { rows } = await db.query<{ id: string; external_id: string; name: string }>(
    `SELECT id, external_id, name FROM companies
      WHERE workspace_id = $1 AND (id = $2 OR external_id = $2 OR (lower(name) = lower($2)
            AND NOT EXISTS (SELECT 1 FROM companies c WHERE c.workspace_id = $1 AND (c.id = $2 OR c.external_id = $2))))
      ORDER BY (id = $2 OR external_id = $2) DESC, id LIMIT 50`,
    [workspaceId, idOrName.trim()],
  );
  return rows.map((r) => ({ id: r.id, externalId: r.external_id, name: r.name }));
}

export interface CompanyEvidence {
  id: string;
  externalId: string;
  name: string;
  domains: string[];
  arr: number | null;
  plan: string | null;
  segment: string | null;
  stage: string | null;
  /** YYYY-MM-DD. */
  renewalDate: string | null;
  attributes: Record<string, string | number | boolean>;
  createdAt: Date;
  updatedAt: Date;
  /** Its signals, and the people the team linked to it. */
  signalCount: number;
  peopleCount: number;
  /** The opportunities its signals are in, the largest share of their signals first. */
  opportunities: Array<{ id: string; productId: string; title: string; signals: number; evidenceCount: number; share: number }>;
  /** Sources with a signal of it, newest first. */
  sources: Array<{ id: string; title: string; type: string; occurredAt: Date; signals: number }>;
  /** Its signals, newest first. */
  signals: Array<{ id: string; sourceId: string; type: string; title: string; whoSaidIt: string | null; createdAt: Date; opportunityId: string | null }>;
}

/** A company by our id or its external id, with its evidence; undefined when the workspace has none such. */
export async function getCompanyEvidence(db: Db, workspaceId: string, idOrExternalId: string, limits: { opportunities?: number; sources?: number; signals?: number } = {}): Promise<CompanyEvidence | undefined> {
  const { rows } = await db.query<{
    id: string; external_id: string; name: string; domains: string[] | null; arr: string | null; plan: string | null; segment: string | null; stage: string | null;
    renewal_date: string | null; attributes: Record<string, string | number | boolean> | null; created_at: Date; updated_at: Date; signal_count: number; people_count: number;
  }>(
    `SELECT c.id, c.external_id, c.name, c.domains, c.arr, c.plan, c.segment, c.stage, c.renewal_date::text AS renewal_date, c.attributes, c.created_at, c.updated_at,
            (SELECT count(*)::int FROM signals s WHERE s.workspace_id = $1 AND s.company_id = c.id) AS signal_count,
            (SELECT count(*)::int FROM people p WHERE p.workspace_id = $1 AND p.company_id = c.id) AS people_count
       FROM companies c WHERE c.workspace_id = $1 AND (c.id = $2 OR c.external_id = $2)
      ORDER BY (c.id = $2) DESC LIMIT 1`,
    [workspaceId, idOrExternalId.trim()],
  );
  const c = rows[0];
  if (!c) return undefined;
  const [{ rows: opportunities }, { rows: sources }, { rows: signals }] = await Promise.all([
    db.query<{ id: string; product_id: string; title: string; signals: number; evidence_count: number }>(
      `SELECT o.id, o.product_id, o.title, count(*)::int AS signals, o.evidence_count
         FROM signals s JOIN opportunity_signals os ON os.signal_id = s.id JOIN opportunities o ON o.id = os.opportunity_id AND o.workspace_id = $1
        WHERE s.workspace_id = $1 AND s.company_id = $2
        GROUP BY o.id ORDER BY count(*)::float8 / greatest(o.evidence_count, 1) DESC, count(*) DESC, o.id LIMIT $3`,
      [workspaceId, c.id, limits.opportunities ?? 20],
    ),
    db.query<{ id: string; title: string; type: string; occurred_at: Date; signals: number }>(
      `SELECT src.id, src.title, src.type, src.occurred_at, count(*)::int AS signals
         FROM signals s JOIN sources src ON src.id = s.source_id AND src.workspace_id = $1
        WHERE s.workspace_id = $1 AND s.company_id = $2
        GROUP BY src.id ORDER BY src.occurred_at DESC, src.id DESC LIMIT $3`,
      [workspaceId, c.id, limits.sources ?? 10],
    ),
    db.query<{ id: string; source_id: string; type: string; title: string; who_said_it: string | null; created_at: Date; opportunity_id: string | null }>(
      `SELECT s.id, s.source_id, t.key AS type, s.title, s.who_said_it, s.created_at, os.opportunity_id
         FROM signals s JOIN signal_types t ON t.id = s.type_id LEFT JOIN opportunity_signals os ON os.signal_id = s.id
        WHERE s.workspace_id = $1 AND s.company_id = $2 ORDER BY s.created_at DESC, s.id DESC LIMIT $3`,
      [workspaceId, c.id, limits.signals ?? 10],
    ),
  ]);
  return {
    id: c.id, externalId: c.external_id, name: c.name, domains: c.domains ?? [], arr: c.arr === null ? null : Number(c.arr), plan: c.plan, segment: c.segment,
    stage: c.stage, renewalDate: c.renewal_date, attributes: c.attributes ?? {}, createdAt: c.created_at, updatedAt: c.updated_at,
    signalCount: c.signal_count, peopleCount: c.people_count,
    opportunities: opportunities.map((o) => ({
      id: o.id, productId: o.product_id, title: o.title, signals: o.signals, evidenceCount: o.evidence_count,
      share: o.evidence_count ? Math.round((o.signals / o.evidence_count) * 1000) / 1000 : 0,
    })),
    sources: sources.map((s) => ({ id: s.id, title: s.title, type: s.type, occurredAt: s.occurred_at, signals: s.signals })),
    signals: signals.map((s) => ({ id: s.id, sourceId: s.source_id, type: s.type, title: s.title, whoSaidIt: s.who_said_it, createdAt: s.created_at, opportunityId: s.opportunity_id })),
  };
}
