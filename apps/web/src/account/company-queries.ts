/**
 * The reads of the console's Companies pages (issue 44): a workspace's companies with their evidence,
 * a page at a time, and one company with its people, opportunities, sources and signals. Every
 * statement is scoped to the workspace, so another workspace's company is never found.
 */
import type pg from 'pg';

type Db = Pick<pg.Pool, 'query'>;

export const COMPANY_SORTS = ['arr', 'evidence'] as const;
export type CompanySort = (typeof COMPANY_SORTS)[number];

export interface CompanyFilter {
  /** Words of its name, or (part of) one of its domains; an email address is read as its domain. */
  q?: string;
  segment?: string;
  stage?: string;
}

/** Where the next page starts: the last row's sort key (its ARR, none, or its evidence) and id. */
export interface CompanyCursor {
  sort: CompanySort;
  key: string | null;
  id: string;
}

export interface CompanyRow {
  id: string;
  externalId: string;
  name: string;
  domains: string[];
  /** As stored (NUMERIC as text): never rounded through a float. */
  arr: string | null;
  plan: string | null;
  segment: string | null;
  stage: string | null;
  /** YYYY-MM-DD. */
  renewalDate: string | null;
  /** Its signals (signals.company_id), and the opportunities they are in. */
  evidence: number;
  opportunities: number;
}

const ID = /^[\w-]{1,128}$/;
const ARR = /^-?\d{1,18}(\.\d{1,2})?$/;

export function encodeCompanyCursor(c: CompanyCursor): string {
  return `${c.sort}~${c.key ?? ''}~${c.id}`;
}

/** The cursor of a link, or undefined when it is not one of ours (the first page is shown). */
export function decodeCompanyCursor(text: string, sort: CompanySort): CompanyCursor | undefined {
  const [s, key, id, ...rest] = text.split('~');
  if (rest.length || s !== sort || !id || !ID.test(id) || key === undefined) return undefined;
  if (sort === 'evidence') return /^\d{1,12}$/.test(key) ? { sort, key, id } : undefined;
  if (key === '') return { sort, key: null, id };
  return ARR.test(key) ? { sort, key, id } : undefined;
}

const likeEscaped = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The filter as SQL conditions on `c` (companies), its values appended to `params`. */
function filterSql(filter: CompanyFilter, params: unknown[]): string[] {
  const where = ['c.workspace_id = $1'];
  const q = filter.q?.trim();
  if (q) {
    params.push(`%${likeEscaped(q)}%`);
    const name = `$${params.length}`;
    params.push(`%${likeEscaped((q.includes('@') ? q.slice(q.lastIndexOf('@') + 1) : q).toLowerCase())}%`);
    where.push(`(c.name ILIKE ${name} OR EXISTS (SELECT 1 FROM unnest(c.domains) AS d(domain) WHERE d.domain LIKE $${params.length}))`);
  }
  if (filter.segment) {
    params.push(filter.segment);
    where.push(`c.segment = $${params.length}`);
  }
  if (filter.stage) {
    params.push(filter.stage);
    where.push(`c.stage = $${params.length}`);
  }
  return where;
}

/**
 * The ids of a page in ARR order, biggest first, those without an ARR last: two walks of the index
 * (workspace_id, arr DESC, id DESC), each stopping at the page's size.
 */
function arrPageSql(filter: CompanyFilter, after: CompanyCursor | undefined, params: unknown[]): string {
  const where = filterSql(filter, params).join(' AND ');
  let withArr = 'true';
  let withoutArr = 'true';
  if (after?.key === null) {
    params.push(after.id);
    withArr = 'false';
    withoutArr = `c.id < $${params.length}::text`;
  } else if (after) {
    params.push(after.key, after.id);
    withArr = `(c.arr, c.id) < ($${params.length - 1}::numeric, $${params.length}::text)`;
  }
  const limit = '$2';
  return `(SELECT c.id, c.arr::text AS key FROM companies c WHERE ${where} AND c.arr IS NOT NULL AND ${withArr}
             ORDER BY c.arr DESC, c.id DESC LIMIT ${limit})
          UNION ALL
          (SELECT c.id, NULL AS key FROM companies c WHERE ${where} AND c.arr IS NULL AND ${withoutArr}
             ORDER BY c.id DESC LIMIT ${limit})`;
}

/** The ids of a page by evidence, most first: the workspace's signals counted per company from the index (workspace_id, company_id). */
function evidencePageSql(filter: CompanyFilter, after: CompanyCursor | undefined, params: unknown[]): string {
  const where = filterSql(filter, params);
  if (after) {
    params.push(Number(after.key), after.id);
    where.push(`(coalesce(e.n, 0), c.id) < ($${params.length - 1}::int, $${params.length}::text)`);
  }
  return `SELECT c.id, coalesce(e.n, 0)::text AS key
            FROM companies c
            LEFT JOIN (SELECT s.company_id, count(*)::int AS n FROM signals s WHERE s.workspace_id = $1 AND s.company_id IS NOT NULL GROUP BY s.company_id) e
              ON e.company_id = c.id
           WHERE ${where.join(' AND ')}
           ORDER BY coalesce(e.n, 0) DESC, c.id DESC LIMIT $2`;
}

/** A page of the workspace's companies with their evidence, and the cursor of the next page when there is one. */
export async function listCompanyPage(
  db: Db, workspaceId: string, options: { sort: CompanySort; filter: CompanyFilter; limit: number; after?: CompanyCursor | undefined },
): Promise<{ items: CompanyRow[]; next?: CompanyCursor }> {
  const params: unknown[] = [workspaceId, options.limit + 1];
  const after = options.after?.sort === options.sort ? options.after : undefined;
  const page = options.sort === 'arr' ? arrPageSql(options.filter, after, params) : evidencePageSql(options.filter, after, params);
  const order = options.sort === 'arr' ? '(p.key IS NULL), p.key::numeric DESC, c.id DESC' : 'p.key::int DESC, c.id DESC';
  const { rows } = await db.query<{
    id: string; external_id: string; name: string; domains: string[] | null; arr: string | null; plan: string | null; segment: string | null; stage: string | null;
    renewal_date: string | null; key: string | null; evidence: number; opportunities: number;
  }>(
    `WITH p AS (${page})
     SELECT c.id, c.external_id, c.name, c.domains, c.arr::text AS arr, c.plan, c.segment, c.stage, to_char(c.renewal_date, 'YYYY-MM-DD') AS renewal_date,
            p.key, k.evidence, k.opportunities
       FROM p JOIN companies c ON c.id = p.id AND c.workspace_id = $1
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS evidence, count(DISTINCT os.opportunity_id)::int AS opportunities
           FROM signals s LEFT JOIN opportunity_signals os ON os.signal_id = s.id
          WHERE s.workspace_id = $1 AND s.company_id = c.id) k
      ORDER BY ${order} LIMIT $2`,
    params,
  );
  const items = rows.slice(0, options.limit).map((r) => ({
    id: r.id, externalId: r.external_id, name: r.name, domains: r.domains ?? [], arr: r.arr, plan: r.plan, segment: r.segment, stage: r.stage,
    renewalDate: r.renewal_date, evidence: r.evidence, opportunities: r.opportunities,
  }));
  const last = rows.length > options.limit ? rows[options.limit - 1] : undefined;
  return { items, ...(last ? { next: { sort: options.sort, key: last.key, id: last.id } } : {}) };
}

/** What the filters offer: the segments and stages the workspace's companies have, and how many companies it has. */
export async function companyFacets(db: Db, workspaceId: string): Promise<{ total: number; segments: string[]; stages: string[] }> {
  const { rows } = await db.query<{ total: number; segments: string[]; stages: string[] }>(
    `SELECT (SELECT count(*)::int FROM companies WHERE workspace_id = $1) AS total,
            array(SELECT DISTINCT segment FROM companies WHERE workspace_id = $1 AND segment IS NOT NULL ORDER BY segment LIMIT 200) AS segments,
            array(SELECT DISTINCT stage FROM companies WHERE workspace_id = $1 AND stage IS NOT NULL ORDER BY stage LIMIT 200) AS stages`,
    [workspaceId],
  );
  return rows[0]!;
}

export interface CompanyDetail extends Omit<CompanyRow, 'evidence' | 'opportunities'> {
  attributes: Record<string, string | number | boolean>;
  createdAt: Date;
  updatedAt: Date;
  evidence: number;
  sourceCount: number;
  peopleCount: number;
  opportunityCount: number;
  people: Array<{ name: string | null; email: string | null; externalId: string }>;
  /** The opportunities its signals are in, the largest share of their evidence first (as view_item orders them). */
  opportunities: Array<{ id: string; productId: string; title: string; signals: number; evidenceCount: number }>;
  /** Sources with a signal of it, newest first. */
  sources: Array<{ id: string; title: string; type: string; occurredAt: Date; signals: number }>;
  /** Its signals, newest first. */
  signals: Array<{
    id: string; title: string; typeName: string; whoSaidIt: string | null; createdAt: Date; sourceId: string; sourceTitle: string;
    opportunityId: string | null; opportunityTitle: string | null;
  }>;
}

/** One company of the workspace by our id (`cmp_…`), with at most `limit` of each list; undefined when the workspace has none such. */
export async function getCompanyDetail(db: Db, workspaceId: string, id: string, limit = 20): Promise<CompanyDetail | undefined> {
  const { rows } = await db.query<{
    id: string; external_id: string; name: string; domains: string[] | null; arr: string | null; plan: string | null; segment: string | null; stage: string | null;
    renewal_date: string | null; attributes: Record<string, string | number | boolean> | null; created_at: Date; updated_at: Date;
    evidence: number; source_count: number; opportunity_count: number; people_count: number;
  }>(
    `SELECT c.id, c.external_id, c.name, c.domains, c.arr::text AS arr, c.plan, c.segment, c.stage, to_char(c.renewal_date, 'YYYY-MM-DD') AS renewal_date,
            c.attributes, c.created_at, c.updated_at, k.evidence, k.source_count, k.opportunity_count,
            (SELECT count(*)::int FROM people p WHERE p.workspace_id = $1 AND p.company_id = c.id) AS people_count
       FROM companies c
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS evidence, count(DISTINCT s.source_id)::int AS source_count, count(DISTINCT os.opportunity_id)::int AS opportunity_count
           FROM signals s LEFT JOIN opportunity_signals os ON os.signal_id = s.id
          WHERE s.workspace_id = $1 AND s.company_id = c.id) k
      WHERE c.workspace_id = $1 AND c.id = $2`,
    [workspaceId, id],
  );
  const c = rows[0];
  if (!c) return undefined;
  const [people, opportunities, sources, signals] = await Promise.all([
    db.query<{ name: string | null; email: string | null; external_id: string }>(
      `SELECT p.name, p.email, p.external_id FROM people p WHERE p.workspace_id = $1 AND p.company_id = $2
        ORDER BY p.name NULLS LAST, p.email NULLS LAST, p.id LIMIT $3`,
      [workspaceId, c.id, limit],
    ),
    db.query<{ id: string; product_id: string; title: string; signals: number; evidence_count: number }>(
      `SELECT o.id, o.product_id, o.title, count(*)::int AS signals, o.evidence_count
         FROM signals s JOIN opportunity_signals os ON os.signal_id = s.id JOIN opportunities o ON o.id = os.opportunity_id AND o.workspace_id = $1
        WHERE s.workspace_id = $1 AND s.company_id = $2
        GROUP BY o.id ORDER BY count(*)::float8 / greatest(o.evidence_count, 1) DESC, count(*) DESC, o.id LIMIT $3`,
      [workspaceId, c.id, limit],
    ),
    db.query<{ id: string; title: string; type: string; occurred_at: Date; signals: number }>(
      `SELECT src.id, src.title, src.type, src.occurred_at, count(*)::int AS signals
         FROM signals s JOIN sources src ON src.id = s.source_id AND src.workspace_id = $1
        WHERE s.workspace_id = $1 AND s.company_id = $2
        GROUP BY src.id ORDER BY src.occurred_at DESC, src.id DESC LIMIT $3`,
      [workspaceId, c.id, limit],
    ),
    db.query<{
      id: string; title: string; type_name: string; who_said_it: string | null; created_at: Date; source_id: string; source_title: string;
      opportunity_id: string | null; opportunity_title: string | null;
    }>(
      `SELECT s.id, s.title, t.name AS type_name, s.who_said_it, s.created_at, s.source_id, src.title AS source_title, o.id AS opportunity_id, o.title AS opportunity_title
         FROM signals s JOIN signal_types t ON t.id = s.type_id AND t.workspace_id = $1 JOIN sources src ON src.id = s.source_id AND src.workspace_id = $1
         LEFT JOIN opportunity_signals os ON os.signal_id = s.id LEFT JOIN opportunities o ON o.id = os.opportunity_id AND o.workspace_id = $1
        WHERE s.workspace_id = $1 AND s.company_id = $2 ORDER BY s.created_at DESC, s.id DESC LIMIT $3`,
      [workspaceId, c.id, limit],
    ),
  ]);
  return {
    id: c.id, externalId: c.external_id, name: c.name, domains: c.domains ?? [], arr: c.arr, plan: c.plan, segment: c.segment, stage: c.stage,
    renewalDate: c.renewal_date, attributes: c.attributes ?? {}, createdAt: c.created_at, updatedAt: c.updated_at,
    evidence: c.evidence, sourceCount: c.source_count, peopleCount: c.people_count, opportunityCount: c.opportunity_count,
    people: people.rows.map((p) => ({ name: p.name, email: p.email, externalId: p.external_id })),
    opportunities: opportunities.rows.map((o) => ({ id: o.id, productId: o.product_id, title: o.title, signals: o.signals, evidenceCount: o.evidence_count })),
    sources: sources.rows.map((s) => ({ id: s.id, title: s.title, type: s.type, occurredAt: s.occurred_at, signals: s.signals })),
    signals: signals.rows.map((s) => ({
      id: s.id, title: s.title, typeName: s.type_name, whoSaidIt: s.who_said_it, createdAt: s.created_at, sourceId: s.source_id, sourceTitle: s.source_title,
      opportunityId: s.opportunity_id, opportunityTitle: s.opportunity_title,
    })),
  };
}
