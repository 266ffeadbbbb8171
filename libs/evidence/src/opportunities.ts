/**
 * Opportunities: a product's signals grouped by what they mean (BERTopic's three steps, each replaceable):
 *  1. represent: each signal's theme, title and content become a vector (libs/semantics: SIF-weighted
 *     word vectors), computed by the worker and stored with the signal;
 *  2. cluster: vectors are centred on the product's common component and grouped by average link at
 *     OPPORTUNITY_THRESHOLD (no chaining: two themes merge only when their signals are alike on average);
 *     from 50 to 20,000 signals each is first drawn toward its nearest neighbours (OPPORTUNITY_NEIGHBOURS), so
 *     one theme said several ways becomes one opportunity rather than a piece per wording, and a signal
 *     the cut leaves alone joins its nearest neighbour's opportunity; in that range the signals are also
 *     compared by the product's own vocabulary (latent vectors of their texts, LATENT_SHARE of each similarity),
 *     and the clusters kept are those of the tree that last longest (OPPORTUNITY_STABLE_FLOOR);
 *  3. name: an opportunity is titled after its most central signal, and its distinctive words are the
 *     class-based TF-IDF terms of its members' keywords.
 * New or changed signals are placed incrementally (each joins the opportunity its vector is most like on
 * average, or starts one: cost independent of the product's size), and the product is re-clustered in full
 * in the background when it is small or has drifted (DRIFT_SHARE of its signals changed since). All the
 * arithmetic runs in the semantics thread; this module reads, writes and keeps ids stable: a full
 * re-clustering matches new clusters to old opportunities by overlap, so an opportunity keeps its id
 * while most of its signals stay together.
 */
import type pg from 'pg';
import { withTransaction } from '@loupe/db';
import type { Clock } from '@loupe/http';
import { dot, LATENT_SHARE, SMOOTH_LIMIT, withoutCommon, type CommonComponent, type EmbeddingInfo, type SemanticsThread } from '@loupe/semantics';
import { addChanges, loadClusteringState, saveClusteringState, type ClusteringState } from './clustering-state';
import { lockProduct } from './product-lock';
import { COMPANY_KEY_SQL, refreshImpact, type Impact } from './impact';
import { listSignalsOfProduct, type SignalView } from './signals';
import { subtitleOf } from './subtitle';

/** Average cosine (centred vectors) at which signals share an opportunity: measured with tools/eval (npm run eval:evidence). */
export const OPPORTUNITY_THRESHOLD = 0.35;
/**
 * A full re-clustering of 50 to 20,000 signals (see recluster) draws each signal toward its 5 nearest
 * neighbours that are at least OPPORTUNITY_THRESHOLD alike, then cuts at 0.4 (CLINC150 × 30 in process:
 * 2.10 opportunities per intent against 3.96, NMI 0.849 against 0.853, ARI 0.531 against 0.510; within
 * one domain the gain is larger, see docs/architecture/opportunities.md). Placement between
 * re-clusterings stays at OPPORTUNITY_THRESHOLD: against the smoothed sums it starts as few new
 * opportunities as before (6 % of the placed signals). A signal the cut leaves alone then joins the
 * opportunity of its nearest neighbour (at least OPPORTUNITY_THRESHOLD alike) when that holds more than
 * one: CLINC150 × 30, 1.94 opportunities per intent, NMI 0.848, ARI 0.530.
 */
export const OPPORTUNITY_NEIGHBOURS = { count: 5, threshold: 0.4 };
/**
 * From 50 to 20,000 signals (drawn toward neighbours), the opportunities are the clusters of the
 * average-link tree that last longest between this similarity and the cut, rather than the cut's
 * (libs/semantics stable-cut; beyond 5,000 signals over the cells' small groups clustered as one set): a
 * loose theme is kept whole, and two opportunities never become one whose signals are less than this alike
 * on average. CLINC150 × 20 within one domain, mean of the ten domains: 2.09 → 1.79 opportunities per
 * intent, NMI 0.824 → 0.823, ARI 0.641 → 0.644; all 150 intents × 100 (15,000 signals), 3.64 → 2.39, NMI
 * 0.809 → 0.823, ARI 0.495 → 0.535. A group left smaller than the smallest cluster learned there joins the
 * opportunity it is most alike, when at least this alike (all 150 × 100: 2.39 → 1.95, NMI 0.821, ARI
 * 0.535; docs/adr/0017).
 */
export const OPPORTUNITY_STABLE_FLOOR = 0.25;
/**
 * Names the grouping method; saved with each full clustering. A product last clustered by another
 * method is clustered in full at its next update, and the worker queues one at start (the backfill).
 */
export const CLUSTERING_METHOD = `average-link-${OPPORTUNITY_THRESHOLD}+neighbours-${OPPORTUNITY_NEIGHBOURS.count}-${OPPORTUNITY_NEIGHBOURS.threshold}+lone-to-nearest+latent-${LATENT_SHARE}+stable-${OPPORTUNITY_STABLE_FLOOR}+small-to-nearest+near-duplicates-once+two-probes+communities`;
/** Products with at most this many signals are re-clustered in full after every change (well under a second). */
export const SMALL_PRODUCT = 2_000;
/** Larger products are re-clustered in full once this share of their signals changed since the last time. */
export const DRIFT_SHARE = 0.1;
/** Up to this many signals, a product that changed is also re-clustered in full once it has been quiet a while (settle). */
export const SETTLE_MAX = 20_000;
const EMBED_SLICE = 1_000;
const PLACE_SLICE = 500;
const READ_PAGE = 2_000;
/** Characters of a signal read for its latent vector: a signal is a short claim, its gist is at the start. */
const LATENT_TEXT_CHARS = 2_000;
/** A full re-clustering that rewrote at least this many rows vacuums what it left behind. */
const VACUUM_AFTER = 10_000;

export interface OpportunityDeps {
  pool: pg.Pool;
  semantics: SemanticsThread;
  clock: Clock;
}

export interface UpdateOptions {
  /** Re-cluster in full whatever the drift. */
  full?: boolean;
  /** Re-cluster in full only if signals were placed incrementally since the last time (and the product has at most SETTLE_MAX). */
  settle?: boolean;
  /** Passed to the clustering (tests lower it to exercise the cell path). */
  exactLimit?: number;
  /** SMALL_PRODUCT by default (tests lower it to exercise the incremental path). */
  smallProduct?: number;
}

export interface UpdateResult {
  embedded: number;
  placed: number;
  reclustered: boolean;
  opportunities: number;
  /** Signals were placed incrementally and a settle would re-cluster them (see `settle`). */
  unsettled: boolean;
  /** Milliseconds spent in each phase (embed, place, read, cluster, write): the job's output, read by the bench. */
  phases: Record<string, number>;
}

/** Times phases into `phases` (ms, summed per name). */
function phaseTimer(phases: Record<string, number>) {
  const add = (name: string, ms: number) => {
    phases[name] = Math.round((phases[name] ?? 0) + ms);
  };
  const time = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      add(name, performance.now() - t);
    }
  };
  return Object.assign(time, { add });
}

export { lockProduct };

/** Stored vectors side by side; a missing one (or one of other dims) is zero. */
function vectorsFromRows(rows: Array<{ embedding: Buffer | null }>, dims: number): Float32Array {
  const flat = new Float32Array(rows.length * dims);
  const bytes = new Uint8Array(flat.buffer);
  rows.forEach((r, i) => {
    if (r.embedding && r.embedding.length === dims * 4) bytes.set(r.embedding, i * dims * 4);
  });
  return flat;
}

/** What a signal says: its title and content (its theme is embedded beside them); its vector and keywords are made of this. */
export const signalText = (r: { title: string; content: string }) => `${r.title}\n${r.content}`;

/** Lets requests waiting on the event loop run between the steps of a large re-clustering. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const toBase64 = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');

/** What a signal's vector and keywords are made of (title, content, theme), hashed: the version a write of them is guarded on. */
const signalTextHash = (row = '') => `md5(${row}title || E'\\n' || ${row}content || E'\\n' || coalesce(${row}theme, ''))`;

/**
 * The order signals are grouped in (then by id), the same in any workspace: what they say, then their type's
 * key (`t`). The stored content_hash will not do: it hashes the workspace's own type id.
 */
const orderKeySql = `${signalTextHash('s.')} || ' ' || t.key`;
/** A signal's place in that order: its order key (read as `order_key`), then its id. */
const clusteringOrder = (r: { order_key: string; id: string }) => `${r.order_key}\u0000${r.id}`;

/** Embeds signals of the product whose vector is missing or of another version, `EMBED_SLICE` at a time. */
async function embedSignals(deps: OpportunityDeps, workspaceId: string, productId: string, info: EmbeddingInfo, onlyPending: boolean): Promise<number> {
  let embedded = 0;
  let after = '';
  for (;;) {
    const { rows } = await deps.pool.query<{ id: string; title: string; content: string; theme: string | null; text_hash: string }>(
      `SELECT id, title, content, theme, ${signalTextHash()} AS text_hash FROM signals
        WHERE workspace_id = $1 AND product_id = $2 AND id > $3 ${onlyPending ? 'AND cluster_pending' : ''}
          AND embedding_version IS DISTINCT FROM $4
        ORDER BY id LIMIT ${EMBED_SLICE}`,
      [workspaceId, productId, after, info.version],
    );
    if (rows.length === 0) return embedded;
    const out = await deps.semantics.run('embed', { texts: rows.map(signalText), themes: rows.map((r) => r.theme) });
    const records = rows.map((r, i) => ({ id: r.id, e: toBase64(out.vectors.subarray(i * out.dims, (i + 1) * out.dims)), k: out.keywords[i], h: r.text_hash }));
    // Only signals whose text is still the text embedded: one redacted by an erasure (or edited) meanwhile
    // keeps waiting, so keywords of its old text (a surname, say) are never written back.
    await deps.pool.query(
      `UPDATE signals s SET embedding = decode(x.e, 'base64'), embedding_version = $3, keywords = x.k
         FROM jsonb_to_recordset($4::jsonb) AS x(id text, e text, k text[], h text)
        WHERE s.workspace_id = $1 AND s.product_id = $2 AND s.id = x.id AND s.id = ANY($5::text[]) AND ${signalTextHash('s.')} = x.h`,
      // The id list lets the planner read the slice's rows by key (it misjudges the recordset and scanned the table).
      [workspaceId, productId, out.version, JSON.stringify(records), rows.map((r) => r.id)],
    );
    embedded += rows.length;
    after = rows[rows.length - 1]!.id;
  }
}


/**
 * Brings the product's opportunities up to date with its signals: embeds what needs it, places pending
 * signals, and re-clusters in full when the product is small, has drifted, or has no clustering yet.
 * One update of a product runs at a time, whichever queue it comes from (a session lock held throughout).
 */
export async function updateOpportunities(deps: OpportunityDeps, workspaceId: string, productId: string, options: UpdateOptions = {}): Promise<UpdateResult> {
  const lock = await deps.pool.connect();
  const key = `opportunities-job:${workspaceId}:${productId}`;
  try {
    await lock.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
    return await updateLocked(deps, workspaceId, productId, options);
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(() => undefined);
    lock.release();
  }
}

async function updateLocked(deps: OpportunityDeps, workspaceId: string, productId: string, options: UpdateOptions): Promise<UpdateResult> {
  const info = await deps.semantics.describe();
  const version = info.version;
  const state = await loadClusteringState(deps.pool, workspaceId, productId);
  const { rows: counts } = await deps.pool.query<{ pending: number }>(
    'SELECT count(*)::int AS pending FROM signals WHERE workspace_id = $1 AND product_id = $2 AND cluster_pending',
    [workspaceId, productId],
  );
  const { pending } = counts[0]!;
  // The product's size: counted exactly only without a clustering. After one, what it counted plus
  // what was placed or is pending since (an upper bound: a changed signal counts again) decides as
  // well, without reading a large product's every row (after a backfill's updates, counting 100,000
  // signals read the whole heap: about a second of each incremental update).
  let n: number;
  if (state) {
    n = state.signalCount + state.changesSince + pending;
  } else {
    const { rows } = await deps.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM signals WHERE workspace_id = $1 AND product_id = $2', [workspaceId, productId]);
    n = rows[0]!.n;
  }
  const phases: Record<string, number> = {};
  const time = phaseTimer(phases);
  const settling = options.settle && state && state.changesSince > 0 && n <= SETTLE_MAX;
  const full = options.full || settling || !state || state.embeddingVersion !== version || state.method !== CLUSTERING_METHOD || n <= (options.smallProduct ?? SMALL_PRODUCT) || state.changesSince + pending >= DRIFT_SHARE * n;
  if (!full) {
    const { embedded, placed } = await time('place', () => placePending(deps, workspaceId, productId, state, info));
    const after = await loadClusteringState(deps.pool, workspaceId, productId);
    if (after && after.changesSince >= DRIFT_SHARE * n) {
      const opportunities = await reclusterProduct(deps, workspaceId, productId, info, options, time);
      return { embedded, placed, reclustered: true, opportunities, unsettled: false, phases };
    }
    const opportunities = await countOpportunities(deps.pool, workspaceId, productId);
    return { embedded, placed, reclustered: false, opportunities, unsettled: Boolean(after && after.changesSince > 0 && n <= SETTLE_MAX), phases };
  }
  const embedded = await time('embed', () => embedSignals(deps, workspaceId, productId, info, state?.embeddingVersion === version));
  const opportunities = await reclusterProduct(deps, workspaceId, productId, info, options, time);
  return { embedded, placed: pending, reclustered: true, opportunities, unsettled: false, phases };
}

async function countOpportunities(pool: pg.Pool, workspaceId: string, productId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM opportunities WHERE workspace_id = $1 AND product_id = $2', [workspaceId, productId]);
  return rows[0]!.n;
}

type PendingRow = {
  id: string; order_key: string; title: string; content: string; theme: string | null; type: string; updated_at: Date;
  embedding: Buffer | null; embedding_version: string | null; keywords: string[] | null; opportunity_id: string | null; pinned: boolean;
};

/**
 * Places pending signals one slice at a time: a changed signal leaves its opportunity (its old vector is
 * taken out of the opportunity's sum), signals whose text is new are embedded, and each joins the
 * opportunity it is most like on average, or starts one.
 */
async function placePending(deps: OpportunityDeps, workspaceId: string, productId: string, state: ClusteringState, info: EmbeddingInfo): Promise<{ embedded: number; placed: number }> {
  const { version, dims } = info;
  let placed = 0;
  let embedded = 0;
  for (;;) {
    const { rows } = await deps.pool.query<PendingRow>(
      `SELECT s.id, ${orderKeySql} AS order_key, s.title, s.content, s.theme, t.key AS type, s.updated_at, s.embedding, s.embedding_version, s.keywords, os.opportunity_id, s.pinned
         FROM signals s JOIN signal_types t ON t.id = s.type_id
         LEFT JOIN opportunity_signals os ON os.signal_id = s.id
        WHERE s.workspace_id = $1 AND s.product_id = $2 AND s.cluster_pending
        ORDER BY s.id LIMIT ${PLACE_SLICE}`,
      [workspaceId, productId],
    );
    if (rows.length === 0) return { embedded, placed };
    // Each joins by the rule that formed the opportunities before it, so the order matters: that of what
    // they say, as a full re-clustering's, the same in any workspace.
    rows.sort((a, b) => (clusteringOrder(a) < clusteringOrder(b) ? -1 : 1));
    const { rows: opportunities } = await deps.pool.query<{ id: string; member_sum: Buffer | null; evidence_count: number }>(
      'SELECT id, member_sum, evidence_count FROM opportunities WHERE workspace_id = $1 AND product_id = $2 ORDER BY id',
      [workspaceId, productId],
    );
    const ids = opportunities.map((o) => o.id);
    const indexOf = new Map(ids.map((id, i) => [id, i]));
    const sums = vectorsFromRows(opportunities.map((o) => ({ embedding: o.member_sum })), dims);
    const sizes = Int32Array.from(opportunities, (o) => o.evidence_count);
    rows.forEach((r) => {
      const at = r.opportunity_id ? indexOf.get(r.opportunity_id) : undefined;
      if (at === undefined || !r.embedding) return;
      const old = withoutCommon(vectorsFromRows([r], dims), state.common);
      for (let d = 0; d < dims; d++) sums[at * dims + d]! -= old[d]!;
      sizes[at]!--;
    });
    const stale = rows.filter((r) => r.embedding_version !== version);
    const fresh = new Map<string, { vector: Float32Array; keywords: string[] }>();
    if (stale.length) {
      const out = await deps.semantics.run('embed', { texts: stale.map(signalText), themes: stale.map((r) => r.theme) });
      stale.forEach((r, i) => fresh.set(r.id, { vector: out.vectors.slice(i * dims, (i + 1) * dims), keywords: out.keywords[i]! }));
      embedded += stale.length;
    }
    const centred = new Float32Array(rows.length * dims);
    rows.forEach((r, i) => {
      const raw = fresh.get(r.id)?.vector ?? vectorsFromRows([r], dims);
      centred.set(withoutCommon(raw, state.common), i * dims);
      if (fresh.has(r.id)) r.keywords = fresh.get(r.id)!.keywords;
    });
    // A signal a person put in an opportunity (pinned) stays there: its new vector goes back into that
    // opportunity's sum, and only the others are assigned.
    const kept = rows.map((r) => r.pinned && r.opportunity_id !== null && indexOf.has(r.opportunity_id));
    rows.forEach((r, i) => {
      if (!kept[i]) return;
      const at = indexOf.get(r.opportunity_id!)!;
      for (let d = 0; d < dims; d++) sums[at * dims + d]! += centred[i * dims + d]!;
      sizes[at]!++;
    });
    const free = rows.map((_, i) => i).filter((i) => !kept[i]);
    const freeVectors = new Float32Array(free.length * dims);
    free.forEach((i, j) => freeVectors.set(centred.subarray(i * dims, (i + 1) * dims), j * dims));
    const out = free.length
      ? await deps.semantics.run('assign', { vectors: freeVectors, dims, sums, sizes, threshold: OPPORTUNITY_THRESHOLD })
      : { clusters: new Int32Array(0), sums, sizes };
    const clusters = new Int32Array(rows.length);
    rows.forEach((r, i) => {
      if (kept[i]) clusters[i] = indexOf.get(r.opportunity_id!)!;
    });
    free.forEach((i, j) => {
      clusters[i] = out.clusters[j]!;
    });
    const now = new Date(deps.clock.now());
    await withTransaction(deps.pool, async (client) => {
      await lockProduct(client, workspaceId, productId);
      const created = new Map<number, { id: string; row: PendingRow; score: number }>();
      const membership = rows.map((r, i) => {
        const c = clusters[i]!;
        if (c < ids.length) return ids[c]!;
        // Named, as a re-clustering names it, after its most central signal: the one most like the sum.
        const score = dot(centred.subarray(i * dims, (i + 1) * dims), out.sums.subarray(c * dims, (c + 1) * dims));
        const known = created.get(c);
        if (!known) created.set(c, { id: `opp_${r.id.replace(/^sig_/, '')}`, row: r, score });
        else if (score > known.score) Object.assign(known, { row: r, score });
        return created.get(c)!.id;
      });
      for (const { id, row } of created.values()) {
        await client.query(
          `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, keywords, central_signal_id, created_at, updated_at)
           VALUES ($1, $2, $3, $4, '', $5, 0, 0, $6, $7, $8, $8) ON CONFLICT (id) DO NOTHING`,
          [id, workspaceId, productId, row.title, row.type, (row.keywords ?? []).slice(0, 5), row.id, now],
        );
      }
      const touched = [...new Set([...membership, ...rows.map((r) => r.opportunity_id).filter((x): x is string => Boolean(x))])];
      await client.query(
        `INSERT INTO opportunity_signals (opportunity_id, signal_id) SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (signal_id) DO UPDATE SET opportunity_id = EXCLUDED.opportunity_id`,
        [membership, rows.map((r) => r.id)],
      );
      const sumOf = (c: number) => toBase64(out.sums.subarray(c * dims, (c + 1) * dims));
      const sumsById = new Map<string, string>();
      clusters.forEach((c, i) => sumsById.set(membership[i]!, sumOf(c)));
      for (const id of rows.map((r) => r.opportunity_id)) if (id && indexOf.has(id)) sumsById.set(id, sumOf(indexOf.get(id)!));
      await client.query(
        `UPDATE opportunities o SET member_sum = decode(x.e, 'base64') FROM jsonb_to_recordset($3::jsonb) AS x(id text, e text)
          WHERE o.workspace_id = $1 AND o.product_id = $2 AND o.id = x.id AND o.id = ANY($4::text[])`,
        [workspaceId, productId, JSON.stringify([...sumsById].map(([id, e]) => ({ id, e }))), [...sumsById.keys()]],
      );
      await refreshCounts(client, workspaceId, productId, touched, now);
      await client.query(
        `UPDATE signals s SET cluster_pending = false FROM unnest($3::text[], $4::timestamptz[]) AS x(id, updated_at)
          WHERE s.workspace_id = $1 AND s.product_id = $2 AND s.id = x.id AND s.updated_at = x.updated_at`,
        [workspaceId, productId, rows.map((r) => r.id), rows.map((r) => r.updated_at)],
      );
      if (stale.length) {
        await client.query(
          `UPDATE signals s SET embedding = decode(x.e, 'base64'), embedding_version = $3, keywords = x.k
             FROM jsonb_to_recordset($4::jsonb) AS x(id text, e text, k text[], updated_at timestamptz)
            WHERE s.workspace_id = $1 AND s.product_id = $2 AND s.id = x.id AND s.updated_at = x.updated_at AND s.id = ANY($5::text[])`,
          [workspaceId, productId, version, JSON.stringify(stale.map((r) => ({ id: r.id, e: toBase64(fresh.get(r.id)!.vector), k: fresh.get(r.id)!.keywords, updated_at: r.updated_at }))), stale.map((r) => r.id)],
        );
      }
      await addChanges(client, workspaceId, productId, rows.length);
    });
    placed += rows.length;
  }
}

/** Counts, companies, type, subtitle and impact of the given opportunities from their members; empty ones are removed. */
export async function refreshCounts(client: pg.PoolClient, workspaceId: string, productId: string, ids: string[], now: Date): Promise<void> {
  await client.query(
    `DELETE FROM opportunities o WHERE o.workspace_id = $1 AND o.product_id = $2 AND o.id = ANY($3)
        AND NOT EXISTS (SELECT 1 FROM opportunity_signals os WHERE os.opportunity_id = o.id)`,
    [workspaceId, productId, ids],
  );
  const { rows } = await client.query<{ id: string; n: number; companies: number; keywords: string[] | null }>(
    `UPDATE opportunities o SET evidence_count = x.n, unique_company_count = x.companies, type = x.type, updated_at = $4
       FROM (SELECT os.opportunity_id AS id, count(*)::int AS n, count(DISTINCT ${COMPANY_KEY_SQL('s')})::int AS companies,
                    mode() WITHIN GROUP (ORDER BY t.key) AS type
               FROM opportunity_signals os JOIN signals s ON s.id = os.signal_id AND s.workspace_id = $1
               JOIN signal_types t ON t.id = s.type_id
              WHERE os.opportunity_id = ANY($3) GROUP BY os.opportunity_id) x
      WHERE o.workspace_id = $1 AND o.product_id = $2 AND o.id = x.id
      RETURNING o.id, x.n, x.companies, o.keywords`,
    [workspaceId, productId, ids, now],
  );
  await client.query(
    `UPDATE opportunities o SET subtitle = x.subtitle FROM unnest($2::text[], $3::text[]) AS x(id, subtitle) WHERE o.workspace_id = $1 AND o.id = x.id`,
    [workspaceId, rows.map((r) => r.id), rows.map((r) => subtitleOf(r.n, r.companies, r.keywords ?? []))],
  );
  await refreshImpact(client, workspaceId, rows.map((r) => r.id), now);
}

export { subtitleOf };

type ClusterRow = {
  id: string;
  /** The order it is clustered in (orderKeySql). */
  order_key: string;
  type: string; company: string | null; updated_at: Date; cluster_pending: boolean; embedding: Buffer | null; keywords: string[] | null;
  /**
   * What the signal says (title, content, theme; the start of a long one), for the latent vectors over the
   * product's own words; null in a product too large to be drawn toward neighbours (SMOOTH_LIMIT), which has none.
   */
  text: string | null;
  /** The opportunity a person put it in (pinned), if any. */
  pinned_to: string | null;
};

/** A re-clustering read signals that changed before it could write: what it would write is of their old text. */
class StaleRead extends Error {}

/** How many times a re-clustering starts again when signals change under it, before leaving them to the next run. */
const RECLUSTER_TRIES = 3;

/**
 * Re-clusters every signal of the product and writes the result, keeping ids by overlap. Returns the
 * number of opportunities. When a signal it read was changed or deleted before the write (an erasure
 * redacted it, a person edited it), nothing is written, since names and keywords would carry the old
 * text, and it starts again; after `RECLUSTER_TRIES` the changed signals, still pending, wait for the next run.
 */
async function reclusterProduct(deps: OpportunityDeps, workspaceId: string, productId: string, info: EmbeddingInfo, options: UpdateOptions,
  time: ReturnType<typeof phaseTimer>): Promise<number> {
  for (let tries = 1; ; tries++) {
    try {
      return await reclusterOnce(deps, workspaceId, productId, info, options, time);
    } catch (error) {
      if (!(error instanceof StaleRead)) throw error;
      if (tries === RECLUSTER_TRIES) return countOpportunities(deps.pool, workspaceId, productId);
    }
  }
}

/** Whether a signal of `read` changed or went since it was read (its updated_at, to the millisecond, differs). */
async function changedSinceRead(client: pg.PoolClient, workspaceId: string, read: Array<{ id: string; updated_at: Date }>): Promise<boolean> {
  for (let at = 0; at < read.length; at += 5_000) {
    const slice = read.slice(at, at + 5_000);
    const { rows } = await client.query(
      `SELECT 1 FROM unnest($2::text[], $3::timestamptz[]) AS x(id, updated_at) LEFT JOIN signals s ON s.workspace_id = $1 AND s.id = x.id
        WHERE s.id IS NULL OR date_trunc('milliseconds', s.updated_at) IS DISTINCT FROM x.updated_at LIMIT 1`,
      [workspaceId, slice.map((r) => r.id), slice.map((r) => r.updated_at)],
    );
    if (rows.length) return true;
  }
  return false;
}

/** Whether the product has at most `limit` signals to cluster (not pinned), counting no further than limit + 1. */
async function freeSignalsAtMost(pool: pg.Pool, workspaceId: string, productId: string, version: string, limit: number): Promise<boolean> {
  const { rows } = await pool.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM (SELECT 1 FROM signals
      WHERE workspace_id = $1 AND product_id = $2 AND embedding_version = $3 AND NOT pinned LIMIT $4) s`,
    [workspaceId, productId, version, limit + 1],
  );
  return rows[0]!.count <= limit;
}

async function reclusterOnce(deps: OpportunityDeps, workspaceId: string, productId: string, info: EmbeddingInfo, options: UpdateOptions,
  time: ReturnType<typeof phaseTimer>): Promise<number> {
  const { version, dims } = info;
  const rows: ClusterRow[] = [];
  const pinned: ClusterRow[] = [];
  let after = '';
  const withTexts = await time('read', () => freeSignalsAtMost(deps.pool, workspaceId, productId, version, SMOOTH_LIMIT));
  // Vectors are packed page by page as they arrive (and the rows let go of their buffers), so no step
  // on the event loop copies the whole product at once.
  const pages: Float32Array[] = [];
  await time('read', async () => { for (;;) {
    const { rows: page } = await deps.pool.query<ClusterRow>(
      `SELECT s.id, ${orderKeySql} AS order_key, t.key AS type, ${COMPANY_KEY_SQL('s')} AS company, s.updated_at, s.cluster_pending, s.embedding, s.keywords,
              ${withTexts ? `left(s.title || E'\n' || s.content || E'\n' || coalesce(s.theme, ''), ${LATENT_TEXT_CHARS})` : 'NULL'} AS text,
              CASE WHEN s.pinned THEN (SELECT os.opportunity_id FROM opportunity_signals os WHERE os.signal_id = s.id) END AS pinned_to
         FROM signals s JOIN signal_types t ON t.id = s.type_id
        WHERE s.workspace_id = $1 AND s.product_id = $2 AND s.id > $3 AND s.embedding_version = $4
        ORDER BY s.id LIMIT ${READ_PAGE}`,
      [workspaceId, productId, after, version],
    );
    // Pinned signals stay out of the clustering: they join the opportunity a person chose afterwards.
    const free = page.filter((r) => !r.pinned_to);
    pages.push(vectorsFromRows(free, dims));
    for (const r of free) {
      r.embedding = null;
      rows.push(r);
    }
    pinned.push(...page.filter((r) => r.pinned_to));
    if (page.length < READ_PAGE) break;
    after = page[page.length - 1]!.id;
    await yieldToLoop();
  } });
  const now = new Date(deps.clock.now());
  if (rows.length === 0 && pinned.length) {
    // Only pinned signals: nothing to cluster; they stay where people put them.
    await deps.pool.query('UPDATE signals SET cluster_pending = false WHERE workspace_id = $1 AND product_id = $2 AND id = ANY($3)', [workspaceId, productId, pinned.map((r) => r.id)]);
    return countOpportunities(deps.pool, workspaceId, productId);
  }
  if (rows.length === 0) {
    await withTransaction(deps.pool, async (client) => {
      await lockProduct(client, workspaceId, productId);
      await client.query('DELETE FROM opportunities WHERE workspace_id = $1 AND product_id = $2', [workspaceId, productId]);
    });
    return 0;
  }
  const vectors = new Float32Array(rows.length * dims);
  pages.reduce((at, page) => (vectors.set(page, at), at + page.length), 0);
  pages.length = 0;
  await yieldToLoop();
  const result = await time('cluster', () => deps.semantics.run('recluster', {
    vectors,
    dims,
    denseDims: info.denseDims,
    keywords: rows.map((r) => r.keywords ?? []),
    // Beyond SMOOTH_LIMIT the thread would not use them (signals added since the count may pass it).
    texts: withTexts && rows.length <= SMOOTH_LIMIT ? rows.map((r) => r.text ?? '') : undefined,
    // Neither the order of arrival nor the workspace may matter (sorted in the thread).
    orderKeys: rows.map(clusteringOrder),
    threshold: OPPORTUNITY_THRESHOLD,
    neighbours: OPPORTUNITY_NEIGHBOURS,
    stableFloor: OPPORTUNITY_STABLE_FLOOR,
    communities: true,
    exactLimit: options.exactLimit,
  }, [vectors.buffer as ArrayBuffer]));
  await yieldToLoop();
  const writeStarted = performance.now();
  const k = result.sizes.length;
  // The current membership, a page of opportunities at a time (one result of 100,000 rows held the event loop).
  const previous: Array<{ signal_id: string; opportunity_id: string; created_at: Date }> = [];
  for (let afterOpportunity = '';;) {
    const { rows: page } = await deps.pool.query<{ signal_id: string | null; opportunity_id: string; created_at: Date }>(
      `SELECT os.signal_id, o.id AS opportunity_id, o.created_at
         FROM (SELECT id, created_at FROM opportunities WHERE workspace_id = $1 AND product_id = $2 AND id > $3 ORDER BY id LIMIT 50) o
         LEFT JOIN opportunity_signals os ON os.opportunity_id = o.id`,
      [workspaceId, productId, afterOpportunity],
    );
    if (page.length === 0) break;
    for (const r of page) {
      if (r.signal_id) previous.push({ signal_id: r.signal_id, opportunity_id: r.opportunity_id, created_at: r.created_at });
      if (r.opportunity_id > afterOpportunity) afterOpportunity = r.opportunity_id;
    }
    await yieldToLoop();
  }
  const pinnedTo = new Set(pinned.map((r) => r.pinned_to!));
  const ids = matchIds(rows, result.labels, k, previous, pinnedTo);
  await yieldToLoop();
  const createdAt = new Map(previous.map((p) => [p.opportunity_id, p.created_at]));
  const { rows: centrals } = await deps.pool.query<{ id: string; title: string }>('SELECT id, title FROM signals WHERE workspace_id = $1 AND id = ANY($2)', [
    workspaceId,
    [...result.central].map((i) => rows[i]!.id),
  ]);
  const titleOf = new Map(centrals.map((c) => [c.id, c.title]));
  const members: number[][] = Array.from({ length: k }, () => []);
  result.labels.forEach((c, i) => members[c]!.push(i));
  const companySets = new Map<string, Set<string>>();
  const opportunities: OpportunityOut[] = members.map((list, c) => {
    const types = new Map<string, number>();
    const companies = new Set<string>();
    companySets.set(ids[c]!, companies);
    for (const i of list) {
      types.set(rows[i]!.type, (types.get(rows[i]!.type) ?? 0) + 1);
      if (rows[i]!.company) companies.add(rows[i]!.company!);
    }
    const type = [...types].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    const central = rows[result.central[c]!]!.id;
    return {
      id: ids[c]!, title: titleOf.get(central) ?? '', subtitle: subtitleOf(list.length, companies.size, result.terms[c]!), type,
      evidence_count: list.length, unique_company_count: companies.size, keywords: result.terms[c]!, central_signal_id: central,
      member_sum: toBase64(result.sums.subarray(c * dims, (c + 1) * dims)), created_at: (createdAt.get(ids[c]!) ?? now).toISOString(),
    };
  });
  await addPinned(deps.pool, workspaceId, opportunities, companySets, pinned, result.common, dims, now);
  await yieldToLoop();
  const before = new Map(previous.map((p) => [p.signal_id, p.opportunity_id]));
  const moved = rows.map((r, i) => [r.id, ids[result.labels[i]!]!] as const).filter(([signal, opp]) => before.get(signal) !== opp);
  await withTransaction(deps.pool, async (client) => {
    await lockProduct(client, workspaceId, productId);
    // Under the product's lock, which an erasure's redaction of signals takes too: after this check no
    // signal read can change until the opportunities written from it are committed.
    if (await changedSinceRead(client, workspaceId, [...rows, ...pinned])) throw new StaleRead();
    await client.query('DELETE FROM opportunities WHERE workspace_id = $1 AND product_id = $2 AND NOT (id = ANY($3))', [workspaceId, productId, opportunities.map((o) => o.id)]);
    for (let at = 0; at < opportunities.length; at += 1_000) {
      await client.query(
        `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, keywords, central_signal_id, member_sum, created_at, updated_at)
         SELECT x.id, $1, $2, x.title, x.subtitle, x.type, x.evidence_count, x.unique_company_count, x.keywords, x.central_signal_id, decode(x.member_sum, 'base64'), x.created_at, $3
           FROM jsonb_to_recordset($4::jsonb) AS x(id text, title text, subtitle text, type text, evidence_count int, unique_company_count int, keywords text[], central_signal_id text, member_sum text, created_at timestamptz)
         ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, subtitle = EXCLUDED.subtitle, type = EXCLUDED.type, evidence_count = EXCLUDED.evidence_count,
           unique_company_count = EXCLUDED.unique_company_count, keywords = EXCLUDED.keywords, central_signal_id = EXCLUDED.central_signal_id,
           member_sum = EXCLUDED.member_sum, updated_at = EXCLUDED.updated_at`,
        [workspaceId, productId, now, JSON.stringify(opportunities.slice(at, at + 1_000))],
      );
    }
    for (let at = 0; at < moved.length; at += 5_000) {
      const slice = moved.slice(at, at + 5_000);
      await client.query(
        `INSERT INTO opportunity_signals (opportunity_id, signal_id) SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (signal_id) DO UPDATE SET opportunity_id = EXCLUDED.opportunity_id`,
        [slice.map((m) => m[1]), slice.map((m) => m[0])],
      );
    }
    // The impact, from the companies the signals resolve to now (read under the lock, as the write).
    for (let at = 0; at < opportunities.length; at += 1_000) {
      await refreshImpact(client, workspaceId, opportunities.slice(at, at + 1_000).map((o) => o.id), now);
    }
    const pending = [...rows, ...pinned].filter((r) => r.cluster_pending);
    // In slices: one statement's parameters for 100,000 signals took 0.3 s to serialise on the event loop.
    for (let at = 0; at < pending.length; at += 5_000) {
      const slice = pending.slice(at, at + 5_000);
      await client.query(
        `UPDATE signals s SET cluster_pending = false FROM unnest($3::text[], $4::timestamptz[]) AS x(id, updated_at)
          WHERE s.workspace_id = $1 AND s.product_id = $2 AND s.id = x.id AND s.updated_at = x.updated_at`,
        [workspaceId, productId, slice.map((r) => r.id), slice.map((r) => r.updated_at)],
      );
    }
    await saveClusteringState(client, workspaceId, productId, { embeddingVersion: version, method: CLUSTERING_METHOD, common: result.common, signalCount: rows.length + pinned.length, changesSince: 0 }, now);
  });
  time.add('write', performance.now() - writeStarted);
  if (moved.length + rows.filter((r) => r.cluster_pending).length >= VACUUM_AFTER) {
    // A backfill rewrites every row twice: until autovacuum comes (a minute or more), the pending
    // index still points at 100,000 dead rows and each incremental update read them all (~1-2 s).
    // In the background: the next update of the product need not wait for it.
    void deps.pool.query('VACUUM (ANALYZE) signals, opportunity_signals').catch(() => undefined);
  }
  return opportunities.length;
}

type OpportunityOut = {
  id: string; title: string; subtitle: string; type: string; evidence_count: number; unique_company_count: number; keywords: string[];
  central_signal_id: string; member_sum: string; created_at: string;
};

/**
 * Puts pinned signals in the opportunities people chose: into the cluster that kept that id, or, when
 * none did, into the opportunity kept as it was named (its title and keywords) with its pinned signals
 * alone. Counts, companies, type and the member sum follow.
 */
async function addPinned(
  pool: pg.Pool, workspaceId: string, opportunities: OpportunityOut[], companySets: Map<string, Set<string>>, pinned: ClusterRow[], common: CommonComponent, dims: number, now: Date,
) {
  if (pinned.length === 0) return;
  const byId = new Map(opportunities.map((o) => [o.id, o]));
  const groups = new Map<string, ClusterRow[]>();
  for (const r of pinned) groups.set(r.pinned_to!, [...(groups.get(r.pinned_to!) ?? []), r]);
  const { rows: kept } = await pool.query<{ id: string; title: string; keywords: string[] | null; central_signal_id: string | null; created_at: Date }>(
    'SELECT id, title, keywords, central_signal_id, created_at FROM opportunities WHERE workspace_id = $1 AND id = ANY($2)',
    [workspaceId, [...groups.keys()]],
  );
  for (const [id, members] of groups) {
    let o = byId.get(id);
    if (!o) {
      const old = kept.find((k) => k.id === id);
      o = {
        id, title: old?.title ?? '', subtitle: '', type: members[0]!.type, evidence_count: 0, unique_company_count: 0, keywords: old?.keywords ?? [],
        central_signal_id: members.some((m) => m.id === old?.central_signal_id) ? old!.central_signal_id! : members[0]!.id,
        member_sum: toBase64(new Float32Array(dims)), created_at: (old?.created_at ?? now).toISOString(),
      };
      opportunities.push(o);
      byId.set(id, o);
    }
    const sum = new Float32Array(Buffer.from(o.member_sum, 'base64').buffer.slice(0));
    for (const m of members) {
      const centred = withoutCommon(vectorsFromRows([m], dims), common);
      for (let d = 0; d < dims; d++) sum[d]! += centred[d]!;
    }
    o.member_sum = toBase64(sum);
    const companies = companySets.get(id) ?? new Set<string>();
    for (const m of members) if (m.company) companies.add(m.company);
    o.evidence_count += members.length;
    o.unique_company_count = companies.size;
    o.subtitle = subtitleOf(o.evidence_count, o.unique_company_count, o.keywords);
  }
}

/**
 * Ids for new clusters: each takes the id of the old opportunity it shares most signals with (largest
 * overlaps first, each old id once); the rest are named after their first signal.
 */
function matchIds(rows: ClusterRow[], labels: Int32Array, k: number, previous: Array<{ signal_id: string; opportunity_id: string }>, reserved: ReadonlySet<string> = new Set()): string[] {
  const oldOf = new Map(previous.map((p) => [p.signal_id, p.opportunity_id]));
  const overlap = new Map<string, number>();
  rows.forEach((r, i) => {
    const old = oldOf.get(r.id);
    if (old) overlap.set(`${labels[i]}\u0000${old}`, (overlap.get(`${labels[i]}\u0000${old}`) ?? 0) + 1);
  });
  const pairs = [...overlap].map(([key, count]) => {
    const [c, old] = key.split('\u0000') as [string, string];
    return { c: Number(c), old, count };
  });
  pairs.sort((a, b) => b.count - a.count || a.c - b.c || a.old.localeCompare(b.old));
  const ids: Array<string | undefined> = new Array(k);
  const used = new Set<string>();
  for (const p of pairs) {
    if (ids[p.c] || used.has(p.old)) continue;
    ids[p.c] = p.old;
    used.add(p.old);
  }
  const first: string[] = new Array(k);
  rows.forEach((r, i) => {
    const c = labels[i]!;
    if (!first[c] || r.id < first[c]!) first[c] = r.id;
  });
  for (let c = 0; c < k; c++) {
    if (ids[c]) continue;
    let id = `opp_${first[c]!.replace(/^sig_/, '')}`;
    // A new name never takes the id of an opportunity pinned signals keep.
    for (let n = 2; used.has(id) || reserved.has(id); n++) id = `opp_${first[c]!.replace(/^sig_/, '')}_${n}`;
    ids[c] = id;
    used.add(id);
  }
  return ids as string[];
}

export interface OpportunityRow {
  id: string;
  title: string;
  subtitle: string;
  type: string;
  keywords: string[];
  createdAt: Date;
  updatedAt: Date;
  evidenceCount: number;
  /** Distinct companies of its signals: a signal's resolved company, else its email domain. */
  uniqueCompanyCount: number;
  /** The sum of the ARR of the distinct companies its signals resolve to. */
  revenue: number;
  segments: string[];
  plans: string[];
  stages: string[];
  /** YYYY-MM-DD. */
  nearestRenewal: string | null;
  newestEvidenceAt: Date | null;
  impact: Impact;
}

type OpportunityDbRow = {
  id: string; product_id: string; title: string; subtitle: string; type: string; keywords: string[] | null; created_at: Date; updated_at: Date; evidence_count: number;
  unique_company_count: number; revenue: string | number; segments: string[] | null; plans: string[] | null; stages: string[] | null; nearest_renewal: Date | string | null;
  newest_evidence_at: Date | null; impact: Partial<Impact> | null;
};
const dateOnly = (d: Date | string | null) => (d === null ? null : typeof d === 'string' ? d.slice(0, 10) : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`);
const toRow = (r: OpportunityDbRow): OpportunityRow => ({
  id: r.id, title: r.title, subtitle: r.subtitle, type: r.type, keywords: r.keywords ?? [], createdAt: r.created_at, updatedAt: r.updated_at,
  evidenceCount: r.evidence_count, uniqueCompanyCount: r.unique_company_count, revenue: Number(r.revenue ?? 0), segments: r.segments ?? [], plans: r.plans ?? [],
  stages: r.stages ?? [], nearestRenewal: dateOnly(r.nearest_renewal), newestEvidenceAt: r.newest_evidence_at,
  impact: { resolved_companies: r.impact?.resolved_companies ?? 0, segments: r.impact?.segments ?? [], plans: r.impact?.plans ?? [], stages: r.impact?.stages ?? [] },
});

const OPPORTUNITY_COLUMNS = `o.id, o.product_id, o.title, o.subtitle, o.type, o.keywords, o.created_at, o.updated_at, o.evidence_count, o.unique_company_count,
  o.revenue, o.segments, o.plans, o.stages, o.nearest_renewal::text AS nearest_renewal, o.newest_evidence_at, o.impact`;

/** How a list of opportunities is ordered: most evidence (the default), most companies, most revenue, most signals in the last 7 days. */
export const OPPORTUNITY_SORTS = ['evidence', 'companies', 'revenue', 'growth'] as const;
export type OpportunitySort = (typeof OPPORTUNITY_SORTS)[number];

/** Which opportunities a list keeps: those with evidence from a company of that segment, plan or stage (any case), or from those companies. */
export interface OpportunityFilter {
  segment?: string | undefined;
  plan?: string | undefined;
  stage?: string | undefined;
  /** Company ids (resolve an external id or name with findCompanies first). */
  companyIds?: readonly string[] | undefined;
}

const ORDER: Record<OpportunitySort, string> = {
  evidence: 'o.evidence_count DESC, o.unique_company_count DESC, o.id',
  companies: 'o.unique_company_count DESC, o.evidence_count DESC, o.id',
  revenue: 'o.revenue DESC, o.unique_company_count DESC, o.evidence_count DESC, o.id',
  growth: 'COALESCE(g.week, 0) DESC, o.evidence_count DESC, o.id',
};

export async function listOpportunities(
  pool: pg.Pool,
  workspaceId: string,
  productId: string,
  page: { limit: number; offset: number },
  options: { sort?: OpportunitySort | undefined; filter?: OpportunityFilter | undefined; now?: Date | undefined } = {},
): Promise<{ items: OpportunityRow[]; total: number; pendingSignals: number; settling: boolean }> {
  const sort = options.sort ?? 'evidence';
  const f = options.filter ?? {};
  const params: unknown[] = [workspaceId, productId];
  const where = ['o.workspace_id = $1', 'o.product_id = $2'];
  const add = (sql: (at: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  const anyCase = (column: string) => (at: string) => `EXISTS (SELECT 1 FROM unnest(o.${column}) v WHERE lower(v) = lower(${at}))`;
  if (f.segment !== undefined) add(anyCase('segments'), f.segment);
  if (f.plan !== undefined) add(anyCase('plans'), f.plan);
  if (f.stage !== undefined) add(anyCase('stages'), f.stage);
  if (f.companyIds !== undefined) {
    add((at) => `o.id IN (SELECT os.opportunity_id FROM signals s JOIN opportunity_signals os ON os.signal_id = s.id
                          WHERE s.workspace_id = $1 AND s.product_id = $2 AND s.company_id = ANY(${at}::text[]))`, f.companyIds);
  }
  const filterParams = params.length;
  // Growth: signals recorded or edited in the last 7 days, as opportunityGrowth counts them.
  const growth = sort === 'growth'
    ? `LEFT JOIN (SELECT os.opportunity_id, count(*)::int AS week FROM signals s JOIN opportunity_signals os ON os.signal_id = s.id
                   WHERE s.workspace_id = $1 AND s.product_id = $2 AND s.updated_at >= $${filterParams + 3} GROUP BY os.opportunity_id) g ON g.opportunity_id = o.id`
    : '';
  const listParams = [...params, page.limit, page.offset, ...(sort === 'growth' ? [new Date((options.now ?? new Date()).getTime() - 7 * 86_400_000)] : [])];
  const [{ rows }, { rows: count }] = await Promise.all([
    pool.query<OpportunityDbRow>(
      `SELECT ${OPPORTUNITY_COLUMNS} FROM opportunities o ${growth}
        WHERE ${where.join(' AND ')} ORDER BY ${ORDER[sort]} LIMIT $${filterParams + 1} OFFSET $${filterParams + 2}`,
      listParams,
    ),
    pool.query<{ n: number; pending: number; settling: boolean }>(
      `SELECT (SELECT count(*)::int FROM opportunities o WHERE ${where.join(' AND ')}) AS n,
              (SELECT count(*)::int FROM signals WHERE workspace_id = $1 AND product_id = $2 AND cluster_pending) AS pending,
              EXISTS (SELECT 1 FROM product_clusterings WHERE workspace_id = $1 AND product_id = $2 AND changes_since > 0 AND signal_count <= $${filterParams + 1}) AS settling`,
      [...params, SETTLE_MAX],
    ),
  ]);
  return { items: rows.map(toRow), total: count[0]!.n, pendingSignals: count[0]!.pending, settling: count[0]!.settling };
}

/** One opportunity with a page of its evidence (newest first) and the evidence total. */
export async function getOpportunity(
  pool: pg.Pool,
  workspaceId: string,
  id: string,
  page: { limit: number; offset: number } = { limit: 50, offset: 0 },
): Promise<(OpportunityRow & { productId: string; evidence: SignalView[]; evidenceTotal: number }) | undefined> {
  const { rows } = await pool.query<OpportunityDbRow>(`SELECT ${OPPORTUNITY_COLUMNS} FROM opportunities o WHERE o.workspace_id = $1 AND o.id = $2`, [workspaceId, id]);
  const r = rows[0];
  if (!r) return undefined;
  const { rows: evidence } = await pool.query<{ id: string; total: number }>(
    `SELECT s.id, count(*) OVER ()::int AS total FROM opportunity_signals os
       JOIN signals s ON s.id = os.signal_id AND s.workspace_id = $1
      WHERE os.opportunity_id = $2 ORDER BY s.created_at DESC, s.id LIMIT $3 OFFSET $4`,
    [workspaceId, id, page.limit, page.offset],
  );
  const wanted = evidence.map((m) => m.id);
  const signals = wanted.length ? await listSignalsOfProduct(pool, workspaceId, r.product_id, wanted) : [];
  const order = new Map(wanted.map((w, i) => [w, i]));
  signals.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return { ...toRow(r), productId: r.product_id, evidence: signals, evidenceTotal: evidence[0]?.total ?? r.evidence_count };
}
