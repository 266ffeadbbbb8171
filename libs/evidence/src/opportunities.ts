/**
 * Opportunities: a product's signals clustered by what they are about.
 *
 * Method (deterministic, no model, no randomness):
 *  1. Signals are ordered by (created_at, id).
 *  2. Each signal's title + content becomes a set of normalised terms (`terms` in ./similarity: lower-case,
 *     stop words out, crude stemming, a small lexicon of product concepts mapping different words for one
 *     thing to one term, e.g. SAML/Okta/single sign-on → sso, Excel/CSV/spreadsheet → spreadsheet).
 *  3. Every pair is scored with `similarity` (weighted overlap coefficient, concepts weigh 2, other
 *     terms 1, pairs sharing less than weight 2 score 0). Pairs scoring ≥ SIMILARITY_THRESHOLD = 0.2
 *     are linked, and clusters are the connected components (single link, union-find with the smallest
 *     index as root, so the result does not depend on pair order).
 *  4. An opportunity's title is the title of its most linked signal (ties: the earliest), its type the
 *     most frequent signal type (ties: alphabetical key), its unique_company_count the distinct email
 *     domains of participant_id / who_said_it, free-mail domains (gmail.com …) excluded, and its id is
 *     derived from its earliest signal, so ids are stable across recomputes while that signal stays in.
 *
 * The similarity function and threshold are replaceable: pass `{ similarity, threshold }` to
 * `recomputeOpportunities` / `clusterSignals`. PostgreSQL's pg_trgm was considered (it installs on the
 * embedded PostgreSQL 18 used by the tests) but character trigrams score "SAML single sign-on
 * required" vs "Needs Okta login" at 0.02, so they cannot group one problem told in different words.
 */
import type pg from 'pg';
import { withTransaction } from '@loupe/db';
import type { Clock } from '@loupe/http';
import { listSignalsOfProduct, type SignalView } from './signals';
import { similarity as defaultSimilarity, SIMILARITY_THRESHOLD, terms } from './similarity';

const FREE_MAIL = new Set(['gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'live.com', 'yahoo.com', 'icloud.com', 'me.com', 'aol.com', 'proton.me', 'protonmail.com', 'gmx.com', 'gmx.de', 'web.de']);

function companyOf(signal: SignalView): string | undefined {
  for (const who of [signal.participantId, signal.whoSaidIt]) {
    const m = who ? /@([a-z0-9.-]+\.[a-z]{2,})\s*>?$/i.exec(who.trim()) : null;
    if (m && !FREE_MAIL.has(m[1]!.toLowerCase())) return m[1]!.toLowerCase();
  }
  return undefined;
}

/** How alike two signals' term sets are, in [0, 1]. */
export type SimilarityFn = (a: Set<string>, b: Set<string>) => number;

export interface ClusterOptions {
  /** Defaults to `similarity` of ./similarity. */
  similarity?: SimilarityFn | undefined;
  /** Defaults to SIMILARITY_THRESHOLD (0.2). */
  threshold?: number | undefined;
}

export interface Cluster {
  signals: SignalView[];
  title: string;
  type: string;
  companies: number;
}

/**
 * Groups signals by single-link clustering over `similarity` ≥ threshold, in a stable order (by
 * creation time, then id), so the same signals always give the same opportunities.
 */
export function clusterSignals(signals: SignalView[], similarity: SimilarityFn = defaultSimilarity, threshold: number = SIMILARITY_THRESHOLD): Cluster[] {
  const sorted = [...signals].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
  const sets = sorted.map((s) => terms(`${s.title} ${s.content}`));
  const parent = sorted.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const links = sorted.map(() => 0);
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      if (similarity(sets[i]!, sets[j]!) >= threshold) {
        links[i]!++;
        links[j]!++;
        const [a, b] = [find(i), find(j)];
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
  }
  const groups = new Map<number, number[]>();
  sorted.forEach((_, i) => {
    const root = find(i);
    groups.set(root, [...(groups.get(root) ?? []), i]);
  });
  return [...groups.values()].map((members) => {
    const signalsOf = members.map((i) => sorted[i]!);
    const representative = members.reduce((best, i) => (links[i]! > links[best]! ? i : best), members[0]!);
    const typeCounts = new Map<string, number>();
    for (const s of signalsOf) typeCounts.set(s.type, (typeCounts.get(s.type) ?? 0) + 1);
    const type = [...typeCounts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    const companies = new Set(signalsOf.map(companyOf).filter(Boolean)).size;
    return { signals: signalsOf, title: sorted[representative]!.title, type, companies };
  });
}

/**
 * Replaces the product's opportunities with the clusters of its signals, in one transaction. An
 * opportunity's id comes from its earliest signal, so it stays the same while that signal stays in it.
 */
export async function recomputeOpportunities(
  pool: pg.Pool,
  workspaceId: string,
  productId: string,
  clock: Clock,
  options: ClusterOptions = {},
): Promise<number> {
  return withTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('opportunities:' || $1 || ':' || $2, 0))", [workspaceId, productId]);
    const clusters = clusterSignals(await listSignalsOfProduct(client, workspaceId, productId), options.similarity, options.threshold);
    const now = new Date(clock.now());
    const { rows: previous } = await client.query<{ id: string; created_at: Date }>('SELECT id, created_at FROM opportunities WHERE workspace_id = $1 AND product_id = $2', [workspaceId, productId]);
    const createdAt = new Map(previous.map((p) => [p.id, p.created_at]));
    await client.query('DELETE FROM opportunities WHERE workspace_id = $1 AND product_id = $2', [workspaceId, productId]);
    for (const c of clusters) {
      const id = `opp_${c.signals[0]!.id.replace(/^sig_/, '')}`;
      const n = c.signals.length;
      const subtitle = `${n} signal${n === 1 ? '' : 's'}${c.companies ? ` from ${c.companies} compan${c.companies === 1 ? 'y' : 'ies'}` : ''}`;
      await client.query(
        `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [id, workspaceId, productId, c.title, subtitle, c.type, n, c.companies, createdAt.get(id) ?? now, now],
      );
      await client.query('INSERT INTO opportunity_signals (opportunity_id, signal_id) SELECT $1, unnest($2::text[])', [id, c.signals.map((s) => s.id)]);
    }
    return clusters.length;
  });
}

export interface OpportunityRow {
  id: string;
  title: string;
  subtitle: string;
  type: string;
  createdAt: Date;
  evidenceCount: number;
  uniqueCompanyCount: number;
}

export async function listOpportunities(pool: pg.Pool, workspaceId: string, productId: string, page: { limit: number; offset: number }): Promise<{ items: OpportunityRow[]; total: number }> {
  const [{ rows }, { rows: count }] = await Promise.all([
    pool.query<{ id: string; title: string; subtitle: string; type: string; created_at: Date; evidence_count: number; unique_company_count: number }>(
      `SELECT id, title, subtitle, type, created_at, evidence_count, unique_company_count FROM opportunities
        WHERE workspace_id = $1 AND product_id = $2 ORDER BY evidence_count DESC, unique_company_count DESC, id LIMIT $3 OFFSET $4`,
      [workspaceId, productId, page.limit, page.offset],
    ),
    pool.query<{ n: number }>('SELECT count(*)::int AS n FROM opportunities WHERE workspace_id = $1 AND product_id = $2', [workspaceId, productId]),
  ]);
  return {
    items: rows.map((r) => ({ id: r.id, title: r.title, subtitle: r.subtitle, type: r.type, createdAt: r.created_at, evidenceCount: r.evidence_count, uniqueCompanyCount: r.unique_company_count })),
    total: count[0]!.n,
  };
}

export async function getOpportunity(pool: pg.Pool, workspaceId: string, id: string): Promise<(OpportunityRow & { productId: string; evidence: SignalView[] }) | undefined> {
  const { rows } = await pool.query<{ id: string; product_id: string; title: string; subtitle: string; type: string; created_at: Date; evidence_count: number; unique_company_count: number }>(
    'SELECT * FROM opportunities WHERE workspace_id = $1 AND id = $2',
    [workspaceId, id],
  );
  const r = rows[0];
  if (!r) return undefined;
  const { rows: evidence } = await pool.query<{ id: string }>(
    `SELECT s.id FROM opportunity_signals os
       JOIN opportunities o ON o.id = os.opportunity_id AND o.workspace_id = $1
       JOIN signals s ON s.id = os.signal_id AND s.workspace_id = $1
      WHERE os.opportunity_id = $2`,
    [workspaceId, id],
  );
  const wanted = new Set(evidence.map((m) => m.id));
  const signals = wanted.size ? await listSignalsOfProduct(pool, workspaceId, r.product_id, [...wanted]) : [];
  return {
    id: r.id, productId: r.product_id, title: r.title, subtitle: r.subtitle, type: r.type, createdAt: r.created_at,
    evidenceCount: r.evidence_count, uniqueCompanyCount: r.unique_company_count, evidence: signals,
  };
}
