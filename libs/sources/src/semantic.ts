import type pg from 'pg';
import { quantize, type IndexFilter, type IndexItem, type SemanticsThread } from '@loupe/semantics';
import { RRF_K, type RankedHit } from './fuse';
import { RERANK, type Reranker } from './rerank';
import type { SearchFilters } from './search';
import { textToEmbed } from './text-to-embed';
import { createVocabularyLoader } from './vocabulary-loader';

/**
 * Semantic search of sources (issue 22), in two halves:
 *  - the worker embeds each stored source (title and text, the dense part of libs/semantics' vector,
 *    quantised to 4 + its dimensions in bytes: 104 with the built-in word vectors) into `source_semantics.vector`, stamping `seq` from a sequence (a row of
 *    its own per source: writing into `sources` re-indexed the source's whole search_doc);
 *  - each MCP server instance keeps the vectors of the workspaces it serves in an in-memory index in
 *    its semantics thread, filled on first use and kept fresh by reading the rows changed since it
 *    last read (at most REFRESH_MS old), in the order of the transactions that wrote them
 *    (`change_xid`, see Collection.after), so PostgreSQL stays the source of truth and every instance
 *    sees a write within about a second. docs/architecture/search.md has the scaling path (pgvector).
 */

type Queryable = Pick<pg.Pool, 'query'>;

/** Sources embedded per statement pair. */
const EMBED_SLICE = 200;
/** Characters of a source's text that make its vector (a long transcript's gist is in far fewer). */
const EMBED_CHARS = 20_000;

/**
 * The worker's write of a slice of vectors ($1 workspace, $2 the embedding's version, $3 ids, $4 vectors,
 * $5 the seq each row had when its text was read): a row whose seq moved since is left waiting.
 */
export const WRITE_SOURCE_VECTORS = `UPDATE source_semantics m SET vector = x.v, version = $2, pending = false, seq = nextval('source_semantic_seq')
  FROM unnest($3::text[], $4::bytea[], $5::bigint[]) AS x(id, v, seq)
 WHERE m.workspace_id = $1 AND m.source_id = x.id AND m.seq IS NOT DISTINCT FROM x.seq`;

/**
 * Embeds a workspace's sources that are waiting (new, or embedded with another version). Returns how many.
 * `yieldWhen`, asked after each slice, stops early when it answers true (the caller queues the rest).
 */
export async function embedPendingSources(
  deps: { pool: pg.Pool; semantics: SemanticsThread }, workspaceId: string, options: { yieldWhen?: () => Promise<boolean> } = {},
): Promise<number> {
  const info = await deps.semantics.describe();
  let embedded = 0;
  // Each slice goes on after the last id embedded: the index entries of the ones embedded before are
  // dead until vacuum, and starting from the first id again would walk them all.
  let after = '';
  for (;;) {
    // The slice's ids first, through the pending index: with its text beside, the planner walked the
    // primary key filtering every source (2.1 s a slice with 680,000 of a million waiting; 35 ms so).
    const { rows } = await deps.pool.query<{ id: string; seq: string; title: string; type: string; occurred_at: Date; body: string }>(
      `WITH next AS MATERIALIZED (
         SELECT m.source_id AS id, m.seq FROM source_semantics m WHERE m.workspace_id = $1 AND m.pending AND m.source_id > $2 ORDER BY m.workspace_id, m.source_id LIMIT ${EMBED_SLICE})
       SELECT n.id, n.seq, s.title, s.type, s.occurred_at, left(coalesce((SELECT string_agg(g.text, E'\\n' ORDER BY g.position) FROM
                (SELECT g.text, g.position FROM source_segments g WHERE g.source_id = n.id ORDER BY g.position LIMIT 200) g), ''), ${EMBED_CHARS}) AS body
         FROM next n JOIN sources s ON s.id = n.id ORDER BY n.id`,
      [workspaceId, after],
    );
    if (rows.length === 0) return embedded;
    after = rows[rows.length - 1]!.id;
    const out = await deps.semantics.run('embed', { texts: rows.map((r) => textToEmbed(r, r.body, EMBED_CHARS)) });
    const vectors = rows.map((_, i) => Buffer.from(quantize(out.vectors.subarray(i * out.dims, i * out.dims + out.denseDims))));
    // Only rows still at the seq read with their text: a source redacted or re-processed meanwhile (an
    // erasure takes a new seq) keeps waiting, and is embedded from its new text, never the old one's vector.
    await deps.pool.query(WRITE_SOURCE_VECTORS, [workspaceId, info.version, rows.map((r) => r.id), vectors, rows.map((r) => r.seq)]);
    embedded += rows.length;
    if (await options.yieldWhen?.()) return embedded;
  }
}

/**
 * After a change of embedding (EMBEDDINGS_MODEL, or the built-in model's version), every source embedded with
 * another one waits again (the index skips it until it is re-embedded) and the workspaces with sources
 * waiting are returned, for their embedding jobs. Run by the worker at its start.
 */
export async function markOutdatedSources(db: Queryable, version: string): Promise<string[]> {
  await db.query('UPDATE source_semantics SET pending = true WHERE NOT pending AND version IS DISTINCT FROM $1', [version]);
  const { rows } = await db.query<{ workspace_id: string }>('SELECT DISTINCT workspace_id FROM source_semantics WHERE pending');
  return rows.map((r) => r.workspace_id);
}

/**
 * Counts a workspace's sources waiting for their vector, up to `cap` ($1: the workspace). In the pending
 * index's order, so it is walked whatever the statistics say: right after a bulk load they still count
 * the sources waiting when autovacuum last analysed, the planner expected to meet `cap` of them soon in a
 * sequential scan, and every count read the whole table (250–430 ms at a million sources, every 2 s).
 */
export const pendingCountStatement = (cap: number) =>
  `SELECT count(*)::int AS n FROM (SELECT 1 FROM source_semantics WHERE workspace_id = $1 AND pending ORDER BY workspace_id, source_id LIMIT ${cap}) x`;

/** Sources of the workspace not embedded yet (counted up to `cap`). */
export async function pendingSemanticSources(db: Queryable, workspaceId: string, cap = 10_000): Promise<number> {
  const { rows } = await db.query<{ n: number }>(pendingCountStatement(cap), [workspaceId]);
  return rows[0]!.n;
}

/** Sources read per statement when filling or refreshing an index. */
const LOAD_PAGE = 2_000;
/** A workspace's index is brought up to date before a search when it is older than this. */
const REFRESH_MS = 1_000;
/**
 * While a workspace is searched, its index is brought up to date this often in the background, so a
 * search rarely waits for a refresh: while records poured in, the search that found its index a second
 * old read and indexed that second's sources first (thousands of rows under a bulk load), and those
 * searches made the tail of find_sources' latency (issue 46).
 */
const KEEP_FRESH_EVERY_MS = 400;
/** The background refresh of a workspace stops when it was not searched for this long. */
const KEEP_FRESH_FOR_MS = 60_000;

/** Where an index's reading of changes stands: the rows after (transaction, source id), in that order. */
interface ChangeCursor {
  xid: string;
  id: string;
}

const FROM_THE_START: ChangeCursor = { xid: '0', id: '' };

interface Collection {
  /**
   * The changes read into the index: every row written by a committed transaction before `after.xid`
   * (and, of that transaction, up to `after.id`), except the writes of the transactions in `running`.
   */
  after: ChangeCursor;
  /**
   * Transactions before `after.xid` still running when the rows around them were read (the
   * snapshot's in-progress list): their writes are read once they commit. Only these are looked for
   * again. The cursor used to stop at the oldest transaction running, and every row after it was read
   * again on each refresh for as long as that transaction stayed open.
   */
  running: string[];
  /** Whether the index holds every source embedded at the time it was filled (false while filling). */
  complete: boolean;
  /** When the last finished refresh started: the index holds every change committed before. */
  refreshedAt: number;
  /** The fill or refresh in progress. */
  refreshing?: Promise<void>;
  /** When it was last searched, and the timer that keeps it fresh meanwhile. */
  searchedAt: number;
  keepFresh?: NodeJS.Timeout;
}

export interface SemanticResult {
  hits: RankedHit[];
  /** The index does not hold every embedded source yet (filling after a start). */
  indexing: boolean;
  /** The embedding provider (EMBEDDINGS_URL) did not embed the query: the search answers by words alone. */
  unavailable?: boolean;
}

export interface SemanticSearch {
  search(workspaceId: string, query: string, filters: SearchFilters, k: number): Promise<SemanticResult>;
  /** Sources of the workspace not embedded yet (up to 1,000), counted at most once per PENDING_TTL_MS. */
  pending(workspaceId: string): Promise<number>;
  /** The second stage of a search's ranking (./rerank) for this workspace: by meaning with feedback, word by word, and by its own vocabulary (./vocabulary). */
  reranker(workspaceId: string): Reranker;
  /** Stops refreshing indexes in the background (the service is stopping). */
  close(): void;
}

/**
 * How long a workspace's count of sources waiting for their vector is reused: after a bulk load the
 * pending index holds the dead entries of every source embedded since the last vacuum, and counting
 * walked them on every search (18 ms at a million sources).
 */
const PENDING_TTL_MS = 2_000;

/** Semantic neighbours asked for beyond the end of the page a search reaches, and at most. */
const NEIGHBOURS_BEYOND_PAGE = 30;
const NEIGHBOURS_MAX = 300;

/**
 * Starts the index's search for a page that reaches `reach` sources: `rankings` is what searchSources
 * takes as `extraRankings` (awaited once the lexical ranking is ready, so the two run at the same
 * time), `result` the whole answer. Both are handled here too: a search that fails before awaiting
 * them leaves no rejection unhandled.
 */
export function startSemanticRankings(search: SemanticSearch, workspaceId: string, query: string, filters: SearchFilters, reach: number) {
  const result = search.search(workspaceId, query, filters, Math.min(reach + NEIGHBOURS_BEYOND_PAGE, NEIGHBOURS_MAX));
  const rankings = result.then((r): RankedHit[][] => (r.hits.length ? [r.hits] : []));
  void rankings.catch(() => undefined);
  return { result, rankings };
}

/** Cosine (centred) below which a source is not offered as a match: measured with tools/eval (npm run eval:evidence). */
export const SEMANTIC_MIN_SCORE = 0.3;

/**
 * An index not brought up to date for this long is filled again from the start: libs/lifecycle prunes
 * the deletion log after a day, so one read after a longer pause could miss a deletion.
 */
const REFILL_AFTER_MS = 12 * 3600 * 1000;

export function createSemanticSearch(
  deps: { pool: pg.Pool; semantics: SemanticsThread; refillAfterMs?: number; keepFreshForMs?: number; vocabularyCheckMs?: number; loadPage?: number },
): SemanticSearch {
  const refillAfterMs = deps.refillAfterMs ?? REFILL_AFTER_MS;
  const keepFreshForMs = deps.keepFreshForMs ?? KEEP_FRESH_FOR_MS;
  const loadPage = deps.loadPage ?? LOAD_PAGE;
  const collections = new Map<string, Collection>();
  const vocabularies = createVocabularyLoader({ pool: deps.pool, semantics: deps.semantics, checkMs: deps.vocabularyCheckMs });
  const pendingCounts = new Map<string, { at: number; count: Promise<number> }>();
  let closed = false;

  /**
   * A page of the changes after `after` (of the transactions `only`, when given), in the order of the
   * transactions that wrote them, and the transactions the statement's snapshot saw running.
   */
  async function readPage(workspaceId: string, after: ChangeCursor, version: string, only?: string[]) {
    const scope = only ? 'AND change_xid = ANY($4::xid8[])' : '';
    const { rows } = await deps.pool.query<{ running: string[]; id: string | null; v: Buffer | null; version: string | null; product_id: string; type: string; nature: string; at: Date; projects: string[] | null; xid: string }>(
      // Deleted sources are gone from `sources`: libs/lifecycle logs each in source_deletions in the
      // deleting transaction, so a deletion is read in order with the writes and drops the id.
      `WITH snapshot AS (SELECT ARRAY(SELECT pg_snapshot_xip(pg_current_snapshot())::text) AS running)
       SELECT h.running, x.id, x.v, x.version, x.product_id, x.type, x.nature, x.at, x.projects, x.xid::text AS xid
         FROM snapshot h LEFT JOIN (
           (SELECT m.source_id AS id, m.vector AS v, m.version, s.product_id, s.type, s.nature, s.occurred_at AS at, s.project_ids AS projects, m.change_xid AS xid
              FROM source_semantics m JOIN sources s ON s.id = m.source_id
             WHERE m.workspace_id = $1 AND (m.change_xid, m.source_id) > ($2::xid8, $3::text) ${scope.replace('change_xid', 'm.change_xid')}
             ORDER BY m.change_xid, m.source_id LIMIT ${loadPage})
           UNION ALL
           (SELECT source_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, change_xid
              FROM source_deletions WHERE workspace_id = $1 AND (change_xid, source_id) > ($2::xid8, $3::text) ${scope}
             ORDER BY change_xid, source_id LIMIT ${loadPage})
           ORDER BY xid, id LIMIT ${loadPage}
         ) x ON true
        ORDER BY x.xid, x.id`,
      only ? [workspaceId, after.xid, after.id, only] : [workspaceId, after.xid, after.id],
    );
    const items: IndexItem[] = [];
    const removed: string[] = [];
    for (const r of rows) {
      if (r.id === null) continue;
      if (r.v && r.version === version) {
        items.push({ id: r.id, vector: new Uint8Array(r.v.buffer, r.v.byteOffset, r.v.byteLength), product: r.product_id, type: r.type, nature: r.nature, at: r.at.getTime(), projects: r.projects ?? [] });
      } else {
        removed.push(r.id);
      }
    }
    const last = rows.at(-1)!;
    return { items, removed, last: last.id === null ? after : { xid: last.xid, id: last.id }, running: rows[0]!.running };
  }

  /**
   * Reads changes into the thread's index a page at a time, from `from` to the end (of the
   * transactions `only`, when given). Returns where it ended, the transactions whose writes it may
   * have passed over because they were running, and false if the thread had lost the index.
   */
  async function readChanges(workspaceId: string, from: ChangeCursor, version: string, only?: string[]) {
    const passed = new Set<string>();
    let cursor = from;
    for (;;) {
      // The first page of a fill starts the index afresh.
      const fill = cursor === FROM_THE_START && !only;
      const page = await readPage(workspaceId, cursor, version, only);
      if (fill || page.items.length || page.removed.length) {
        const out = await deps.semantics.run('index-upsert', { collection: workspaceId, items: page.items, removed: page.removed, fill });
        if (out.missing) return { last: cursor, passed: [], lost: true };
      }
      // A transaction running when this page was read, between where it began and where it ended
      // (or, reading given transactions, any of them), may commit writes there later.
      const begin = BigInt(cursor.xid);
      const end = BigInt(page.last.xid);
      for (const xid of page.running) {
        if (only ? only.includes(xid) : BigInt(xid) > begin && BigInt(xid) < end) passed.add(xid);
      }
      cursor = page.last;
      if (page.items.length + page.removed.length < loadPage) return { last: cursor, passed: [...passed], lost: false };
      // Let requests run between pages of a large fill.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Brings the index up to date: the writes of the transactions that were running last time, then
   * every change after the cursor. Nothing is passed over: a transaction's id is below a page's last
   * row only if it was assigned before that page was read, so it had committed (its rows were read),
   * had rolled back, or was running (in the page's snapshot's list).
   */
  async function catchUp(workspaceId: string, c: Collection, version: string): Promise<void> {
    const started = Date.now();
    for (;;) {
      const settled = c.running.length ? await readChanges(workspaceId, FROM_THE_START, version, c.running) : undefined;
      const changes = settled?.lost ? undefined : await readChanges(workspaceId, c.after, version);
      if (!changes || changes.lost) {
        // The thread was started again and lost this index: fill it from the start.
        c.after = FROM_THE_START;
        c.running = [];
        c.complete = false;
        continue;
      }
      c.after = changes.last;
      c.running = [...new Set([...(settled?.passed ?? []), ...changes.passed])];
      c.complete = true;
      c.refreshedAt = started;
      return;
    }
  }

  function refresh(workspaceId: string, c: Collection, version: string): Promise<void> {
    c.refreshing ??= catchUp(workspaceId, c, version).finally(() => {
      c.refreshing = undefined;
    });
    return c.refreshing;
  }

  /** Refreshes a complete index every KEEP_FRESH_EVERY_MS until it goes unsearched for keepFreshForMs. */
  function keepFresh(workspaceId: string, c: Collection, version: string): void {
    c.searchedAt = Date.now();
    if (c.keepFresh || closed) return;
    c.keepFresh = setInterval(() => {
      if (Date.now() - c.searchedAt > keepFreshForMs || collections.get(workspaceId) !== c) {
        clearInterval(c.keepFresh);
        c.keepFresh = undefined;
      } else if (c.complete && !c.refreshing) {
        // A failure is met again by the next search, which awaits its own refresh.
        refresh(workspaceId, c, version).catch(() => undefined);
      }
    }, KEEP_FRESH_EVERY_MS);
    c.keepFresh.unref();
  }

  return {
    pending(workspaceId) {
      const cached = pendingCounts.get(workspaceId);
      if (cached && Date.now() - cached.at < PENDING_TTL_MS) return cached.count;
      const count = pendingSemanticSources(deps.pool, workspaceId, 1_000);
      pendingCounts.set(workspaceId, { at: Date.now(), count });
      // A failed count is not kept.
      count.catch(() => pendingCounts.delete(workspaceId));
      return count;
    },
    reranker(workspaceId) {
      return async (query, candidates, again) => {
        await vocabularies.ready(workspaceId);
        const out = await deps.semantics.run('rerank', {
          collection: workspaceId, text: query, ids: candidates.map((c) => c.id), texts: candidates.map((c) => c.text), feedback: RERANK.feedback, beta: RERANK.beta,
          words: !again, twice: { weights: RERANK.weights, k: RRF_K },
        });
        if (!out.vocabulary) vocabularies.missing(workspaceId);
        return out;
      };
    },
    async search(workspaceId, query, filters, k) {
      // The version alone (no provider asked): rows embedded with another one are left out of the index until re-embedded.
      const info = { version: await deps.semantics.version() };
      let c = collections.get(workspaceId);
      if (!c) {
        c = { after: FROM_THE_START, running: [], complete: false, refreshedAt: 0, searchedAt: 0 };
        collections.set(workspaceId, c);
      } else if (c.complete && !c.refreshing && Date.now() - c.refreshedAt > refillAfterMs) {
        c.after = FROM_THE_START;
        c.running = [];
        c.complete = false;
      }
      if (c.complete && Date.now() - c.refreshedAt > REFRESH_MS) await refresh(workspaceId, c, info.version);
      else if (!c.complete) void refresh(workspaceId, c, info.version).catch(() => undefined);
      keepFresh(workspaceId, c, info.version);
      const filter: IndexFilter = {
        product: filters.productId, type: filters.sourceType, nature: filters.nature, project: filters.projectId,
        since: filters.since?.getTime(), until: filters.until?.getTime(),
      };
      const out = await deps.semantics.run('index-search', { collection: workspaceId, text: query, k, filter, minScore: SEMANTIC_MIN_SCORE });
      if (!out.loaded && c.complete && !c.refreshing) {
        // The thread was started again (it lost its indexes): fill this one again.
        collections.delete(workspaceId);
        return { hits: [], indexing: true };
      }
      if (out.unavailable !== undefined) return { hits: [], indexing: !c.complete, unavailable: true };
      return { hits: out.hits.map((h) => ({ sourceId: h.id, position: null })), indexing: !c.complete };
    },
    close() {
      closed = true;
      for (const c of collections.values()) clearInterval(c.keepFresh);
    },
  };
}
