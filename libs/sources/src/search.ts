import type pg from 'pg';
import { fuseRankings, type RankedHit } from './fuse';
import { candidateTexts, rerankTop, RERANK, type Reranker } from './rerank';
import { anyOf, lexemesOf, queryShape, type QueryShape } from './search-query';

type Queryable = Pick<pg.Pool, 'query'>;
type Database = Queryable & Partial<Pick<pg.Pool, 'connect'>>;

/**
 * Runs a search's statements on one connection in a read-only transaction that forbids sequential
 * scans (with a LIMIT the planner likes to read sources in table order until enough match: cheap for a
 * common word, ruinous for a rare one or under a filter), with a statement timeout bounding the rest.
 *
 * Every statement is a round trip that waits for the process's event loop, which under ingestion is
 * busy with other work: a search makes as few as it can. The transaction opens in the candidates' first
 * plan (`usePlan`), with the query parsed in the same message (`query`: `fn` is handed the text of
 * its tsquery), and its COMMIT is not waited for (the connection runs it before anything its next user asks).
 */
export async function withSearchSession<T>(db: Database, fn: (q: Queryable, parsed?: string) => Promise<T>, query?: string): Promise<T> {
  if (!db.connect) return fn(db);
  const client = await db.connect();
  statsOwner.set(client, db);
  try {
    // A query's first statement reads candidates through the index (the plan of most words); a listing's, any way.
    const plan: Plan = query === undefined ? 'free' : 'index';
    const opening = `BEGIN READ ONLY; SET LOCAL enable_seqscan = off; SET LOCAL statement_timeout = '${SEARCH_LIMITS.statementTimeoutMs}ms'; ${PLAN_SETTINGS[plan]}`;
    const results = (await client.query(query === undefined ? opening : `${opening}; ${PARSE_SQL(client.escapeLiteral(parsable(query)))}`)) as unknown as pg.QueryResult[];
    planOf.set(client, plan);
    const result = await fn(client, query === undefined ? undefined : (results.at(-1)!.rows[0] as { q: string }).q);
    client.query('COMMIT').catch(() => {}).finally(() => client.release());
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
    throw err;
  }
}

/**
 * How the candidates are read: through the document index's bitmap (rare words) or newest first (common
 * ones); a listing leaves the planner free. The statements after the candidates read rows by primary
 * key, which either plan does through its index.
 */
type Plan = 'index' | 'walk' | 'free';
const PLAN_SETTINGS: Record<Plan, string> = {
  index: 'SET LOCAL enable_bitmapscan = on; SET LOCAL enable_indexscan = off',
  walk: 'SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexscan = on',
  free: 'SET LOCAL enable_bitmapscan = on; SET LOCAL enable_indexscan = on',
};
/** The plan a session's connection is set to (set only when it changes: each SET is a round trip). */
const planOf = new WeakMap<object, Plan>();

async function usePlan(db: Queryable, plan: Plan): Promise<void> {
  if (planOf.get(db) === plan) return;
  await db.query(PLAN_SETTINGS[plan]);
  planOf.set(db, plan);
}

/**
 * Lexical search of a workspace's sources (issue 22); docs/architecture/search.md has the whole story.
 *
 * Candidates: sources whose document vector (`sources.search_doc`: title A + every segment) matches,
 * within the workspace and the filters, cut at a fixed number (the newest) before anything is ranked,
 * through the GIN index (a rare word) or a newest-first walk (a common one). Scored with `ts_rank_cd`
 * (cover density: an exact phrase beats scattered words), a title match counting double.
 *
 * Natural language: the query is read by `websearch_to_tsquery` ("phrase", -word, or keep working).
 * The strict pass wants every word; when it cannot fill the page, the loose pass takes any of the
 * words and scores each source by the share of the query's weight it covers (words weighted by their
 * rarity, read from the column's statistics), so "customers struggling with onboarding" finds the
 * sources about onboarding even when none says "struggling". Strict results always come first.
 */

export interface SearchFilters {
  productId?: string;
  projectId?: string;
  sourceType?: string;
  nature?: string;
  since?: Date;
  until?: Date;
  /** Sources with a signal whose speaker resolved to one of these companies (libs/evidence). */
  companyIds?: readonly string[];
}

/** One lexical hit: a matching segment of a candidate source (position null: the source as a whole), with the source's score. */
export interface LexicalHit extends RankedHit {
  /** The source's score (every hit of a source carries it; its segments follow each other, best first). */
  score: number;
  titleMatched: boolean;
  /** Found by the strict pass (every word); loose hits (some words) always rank below strict ones. */
  strict: boolean;
}

export interface LexicalResult {
  /**
   * Ranked hits, best source first, each source's matching segments in a row (position null: the
   * source matched, its segments were not looked up or none holds the words alone): the list to fuse.
   */
  hits: LexicalHit[];
  /** all_words: the strict pass; some_words: the loose pass added hits; none: no hit at all. */
  matched: 'all_words' | 'some_words' | 'none';
  /** A pass stopped at its candidate cap: more rows match than were ranked. */
  capped: boolean;
  /** Sources with every word (title and segments together); they rank first. */
  withAllWords: number;
  /** The tsquery that marks the matched words in excerpts (the loose one when it was used). */
  highlightQuery: string;
  /** When each candidate source happened (for `sort: newest`). */
  occurredAt: Map<string, Date>;
}

/** Candidate caps and page sizes. */
export const SEARCH_LIMITS = {
  /** Sources ranked per pass, at most (the newest matching ones when more match). */
  sourceCandidates: 200,
  /** Sources whose matching segments are looked up (at least the page asked for). */
  positionsFor: 20,
  /** Sources counted exactly when listing without a query; beyond, the total is a lower bound. */
  listCount: 10_000,
  /**
   * The largest offset a search or a listing takes: where the count stops (listCount). A larger one is
   * refused (SearchQueryError) before anything runs: no page lies beyond the counted results, and an
   * offset of 1e9 made every candidate's segments be ranked until the statement timeout (issue 41).
   */
  maxOffset: 10_000,
  statementTimeoutMs: 5_000,
  maxLimit: 50,
  defaultLimit: 10,
  excerptsPerSource: 3,
} as const;

/** A title hit counts this many times a body hit of the same strength. */
export const TITLE_WEIGHT = 2;

/** A source's title as a vector (weight A). */
const TITLE_VECTOR_SQL = (title: string) => `setweight(to_tsvector('english'::regconfig, ${title}), 'A')`;

/** A source's document vector: its title (weight A) and the heading and text of every segment. */
export const SEARCH_DOCUMENT_SQL = (title: string, body: string) => `${TITLE_VECTOR_SQL(title)} || to_tsvector('english'::regconfig, ${body})`;

export class SearchQueryError extends Error {
  override name = 'SearchQueryError';
}

const OFFSET_TOO_LARGE = `offset must be at most ${SEARCH_LIMITS.maxOffset.toLocaleString('en-US')}: results are counted and paged up to there. `
  + 'To reach further, narrow the search with words or filters (a product, a type, dates)';

interface Filter {
  clause: string;
  params: unknown[];
}

/** The workspace and filter conditions on `s` (sources), numbered from `$first`. */
function filterSql(workspaceId: string, f: SearchFilters, first: number): Filter {
  const where = [`s.workspace_id = $${first}`];
  const params: unknown[] = [workspaceId];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('$?', `$${first + params.length - 1}`));
  };
  if (f.productId) add('s.product_id = $?', f.productId);
  if (f.projectId) add('s.project_ids @> ARRAY[$?::text]', f.projectId);
  if (f.sourceType) add('s.type = $?', f.sourceType);
  if (f.nature) add('s.nature = $?', f.nature);
  if (f.since) add('s.occurred_at >= $?', f.since);
  if (f.until) add('s.occurred_at < $?', f.until);
  if (f.companyIds) add('EXISTS (SELECT 1 FROM signals sg WHERE sg.workspace_id = s.workspace_id AND sg.source_id = s.id AND sg.company_id = ANY($?::text[]))', f.companyIds);
  return { clause: where.join(' AND '), params };
}

// --- word rarity, from the planner's statistics of the document vectors --------------------------------

interface WordStats {
  freq: Map<string, number>;
  /** Sources in the table (the planner's estimate). */
  sources: number;
  /** Share assumed for a word outside the most common elements. */
  rare: number;
  at: number;
}
const statsCache = new WeakMap<object, WordStats>();
/** A session's connection → its pool, so the word statistics are cached per pool, not per connection. */
const statsOwner = new WeakMap<object, object>();
const STATS_TTL_MS = 5 * 60_000;

async function wordStats(db: Queryable): Promise<WordStats> {
  const key = statsOwner.get(db) ?? db;
  const cached = statsCache.get(key);
  if (cached && Date.now() - cached.at < STATS_TTL_MS) return cached;
  const { rows } = await db.query<{ elems: string[] | null; freqs: number[] | null; sources: number }>(
    `SELECT st.most_common_elems::text::text[] AS elems, st.most_common_elem_freqs AS freqs,
            greatest((SELECT reltuples FROM pg_class WHERE oid = 'sources'::regclass), 0)::float8 AS sources
       FROM (SELECT 1) one
       LEFT JOIN pg_stats st ON st.schemaname = current_schema() AND st.tablename = 'sources' AND st.attname = 'search_doc'`,
  );
  const freq = new Map<string, number>();
  let rare = 1e-4;
  const elems = rows[0]?.elems;
  const freqs = rows[0]?.freqs;
  if (elems && freqs) {
    elems.forEach((e, i) => freq.set(e, freqs[i]!));
    // The array ends with the minimum, maximum and null frequency; a word not listed is rarer than the minimum.
    rare = Math.max(1e-6, (freqs[elems.length] ?? 2e-4) / 2);
  }
  const stats = { freq, rare, sources: rows[0]?.sources ?? 0, at: Date.now() };
  statsCache.set(key, stats);
  return stats;
}

/** Share of sources holding an operand: its rarest word (a phrase or AND), or the sum (an OR group). */
function operandShare(operand: string, stats: WordStats): number {
  const shares = lexemesOf(operand).map((w) => stats.freq.get(w) ?? stats.rare);
  if (!shares.length) return stats.rare;
  return operand.includes('|') ? Math.min(1, shares.reduce((a, b) => a + b, 0)) : Math.min(...shares);
}

// --- the lexical passes ---------------------------------------------------------------------------------

interface PassRow {
  source_id: string;
  occurred_at: Date;
  /** ts_rank_cd of the source's document vector (title A + every segment), normalised to [0, 1). */
  rank: number;
  /** ts_rank_cd of the title alone, or null when the title does not match. */
  title_rank: number | null;
  /** Share of the query's weight the document covers (1 in the strict pass), and the title. */
  coverage: number;
  title_coverage: number;
}

type Weights = { operands: string[]; weights: number[] };

/** The operands of the loose pass, parsed once (`ops`), with the weight of each (its rarity). */
function opsCte(weights: Weights | undefined, params: unknown[]): string {
  if (!weights) return '';
  params.push(weights.operands, weights.weights);
  return `WITH ops AS MATERIALIZED (SELECT o.q::tsquery AS q, o.w FROM unnest($${params.length - 1}::text[], $${params.length}::float8[]) AS o(q, w)) `;
}
const coverageSql = (vector: string, weights: Weights | undefined) =>
  weights ? `(SELECT coalesce(sum(ops.w), 0) FROM ops WHERE ${vector} @@ ops.q)` : `(${vector} @@ $1::tsquery)::int`;

/**
 * Candidate sources: the sources whose document vector matches each `match` query (one per word in the
 * loose pass, each with its share of the cap, so a rare word's sources are never crowded out by a
 * common one's), within the workspace and the filters, the newest first when more match than the cap,
 * then ranked by `rankBy`. Two plans, chosen by the estimated share of sources that match (`walk`):
 * rare words go in through the document GIN index (a bitmap of their few sources, then sorted); common
 * ones walk the (workspace, occurred_at) index backwards checking each source's vector and stop at the
 * cap, since their bitmap would hold a large share of the table. The share is an upper bound (all
 * words: the rarest one's), so the bitmap is only chosen when it is cheap for sure: below the crossover
 * sqrt(cap / sources) it reads at most about sqrt(cap × sources) rows. The walk reads at most
 * min(2 × cap / share, sqrt(cap × sources)) sources; when it finds under a quarter of the cap before
 * the scope ends, the words were common alone but rare together, and the bitmap, now known to be small
 * (under a quarter of the crossover), gives them all: about 1.25 × sqrt(cap × sources) rows at worst.
 */
async function sourcePass(db: Queryable, workspaceId: string, filters: SearchFilters, match: string[], rankBy: string, weights?: Weights,
  walk?: { limit: number }): Promise<{ rows: PassRow[]; capped: boolean }> {
  const params: unknown[] = [rankBy];
  const cte = opsCte(weights, params);
  const first = params.length + 1;
  const f = filterSql(workspaceId, filters, first + match.length);
  const each = Math.ceil(SEARCH_LIMITS.sourceCandidates / match.length);
  const walkLimit = walk?.limit ?? 0;
  const arms = match.map((_, i) => walk
    ? `(SELECT w.* FROM (SELECT s.id, s.occurred_at, s.search_doc, s.title FROM sources s WHERE ${f.clause}
          ORDER BY s.occurred_at DESC, s.id DESC LIMIT ${walkLimit}) w
       WHERE w.search_doc @@ $${first + i}::tsquery LIMIT ${each})`
    : `(SELECT s.id, s.occurred_at, s.search_doc, s.title FROM sources s
       WHERE s.search_doc @@ $${first + i}::tsquery AND ${f.clause}
       ORDER BY s.occurred_at DESC, s.id DESC LIMIT ${each})`);
  // Each plan forced: left to itself the planner walked newest first for a word it could not price
  // (reading a million sources for a miss) and read bitmaps for words it thought rare.
  await usePlan(db, walk ? 'walk' : 'index');
  // The title's vector is computed once a row (OFFSET 0 keeps the planner from inlining it into each
  // of its uses: the rank, the match and every operand's coverage, six computations a row in the loose pass).
  const { rows } = await db.query<PassRow>(
    `${cte}SELECT c.id AS source_id, c.occurred_at, ts_rank_cd(c.search_doc, $1::tsquery, 1|32) AS rank,
            CASE WHEN t.v @@ $1::tsquery THEN ts_rank_cd(t.v, $1::tsquery, 32) END AS title_rank,
            ${weights ? coverageSql('c.search_doc', weights) : '1'}::float8 AS coverage,
            ${coverageSql('t.v', weights)}::float8 AS title_coverage
       FROM (${arms.join(' UNION ALL ')}) c
      CROSS JOIN LATERAL (SELECT ${TITLE_VECTOR_SQL('c.title')} AS v OFFSET 0) t`,
    [...params, ...match, ...f.params],
  );
  // The same source brought by two words: once.
  const seen = new Set<string>();
  const unique = rows.filter((r) => !seen.has(r.source_id) && !!seen.add(r.source_id));
  if (walk && unique.length < each) {
    // Fewer than the cap: either the walk reached the end of the scope (all found), or it stopped at
    // its limit. Then, if far fewer than the estimate promised (words common alone, rare together),
    // the index's bitmap is now known to be small and gives them all; otherwise these newest ones are
    // the candidates, and there are more.
    // Counted on the workspace and dates alone (the index holds them: no heap reads): an upper bound
    // of the rows the walk could read, enough to tell it reached the end.
    const scope = filterSql(workspaceId, { since: filters.since, until: filters.until }, 1);
    await usePlan(db, 'walk');
    const { rows: counted } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM sources s WHERE ${scope.clause} ORDER BY s.occurred_at DESC, s.id DESC LIMIT ${walkLimit}) x`, scope.params,
    );
    const stoppedShort = counted[0]!.n >= walkLimit;
    if (stoppedShort && unique.length < each / 4) return sourcePass(db, workspaceId, filters, match, rankBy, weights);
    return { rows: unique, capped: stoppedShort };
  }
  return { rows: unique, capped: rows.length >= each };
}

/**
 * The matching segments of the given sources, best first within each source: where the excerpts come
 * from, and the positions a fused ranking carries. Read through the segments' primary key, their
 * vectors computed here (a page's few hundred segments) rather than stored for every segment: the
 * cost grows with every segment of every source given, so a search asks for its page's sources alone.
 */
async function matchingSegments(db: Queryable, sourceIds: string[], query: string): Promise<Map<string, number[]>> {
  const bySource = new Map<string, number[]>();
  if (!sourceIds.length) return bySource;
  const { rows } = await db.query<{ source_id: string; position: number }>(
    `SELECT g.source_id, g.position FROM source_segments g
      CROSS JOIN LATERAL (SELECT setweight(to_tsvector('english'::regconfig, coalesce(g.heading, '')), 'B') || to_tsvector('english'::regconfig, g.text) AS v OFFSET 0) t
      WHERE g.source_id = ANY($1::text[]) AND t.v @@ $2::tsquery
      ORDER BY g.source_id, ts_rank_cd(t.v, $2::tsquery, 1|32) DESC, g.position`,
    [sourceIds, query],
  );
  for (const r of rows) {
    const list = bySource.get(r.source_id) ?? [];
    list.push(r.position);
    bySource.set(r.source_id, list);
  }
  return bySource;
}

/** Writes the document vector of sources whose segments were written by other means than insertSources (tests, repairs). */
export async function refreshSearchDocuments(db: Queryable, sourceIds: string[]): Promise<void> {
  await db.query(
    `UPDATE sources s SET search_doc = ${SEARCH_DOCUMENT_SQL('s.title', "coalesce(d.body, '')")}
       FROM (SELECT x.id, (SELECT string_agg(concat_ws(E'\n', g.heading, g.text), E'\n' ORDER BY g.position)
                             FROM source_segments g WHERE g.source_id = x.id) AS body
               FROM unnest($1::text[]) AS x(id)) d
      WHERE s.id = d.id`,
    [sourceIds],
  );
}

const PARSE_SQL = (query: string) => `SELECT websearch_to_tsquery('english', ${query})::text AS q`;
/**
 * The query as PostgreSQL takes it: well formed, and a NUL (which no stored text holds, ./text) a space.
 * Not `clean` (./text): its U+FFFD would join the words on either side into one the parser cannot find.
 */
const parsable = (query: string) => query.toWellFormed().replace(/\u0000/g, ' ');

/** Parses the query with websearch_to_tsquery: its text form, or undefined when it holds no word to look for. */
export async function parseQuery(db: Queryable, query: string): Promise<{ tsquery: string; shape: QueryShape } | undefined> {
  const { rows } = await db.query<{ q: string }>({ name: 'sources-search-parse', text: PARSE_SQL('$1'), values: [parsable(query)] });
  return readParsed(rows[0]!.q);
}

/** websearch_to_tsquery's text: the tsquery and its shape, or undefined when it holds no word to look for. */
function readParsed(text: string): { tsquery: string; shape: QueryShape } | undefined {
  const tsquery = text.trim();
  const shape = queryShape(tsquery);
  // Only stop words ("a", "the"), or only exclusions ("-word", which would match nearly everything).
  if (!tsquery || shape.positives.length === 0) return undefined;
  return { tsquery, shape };
}

/**
 * The ranked lexical candidates of `query` in the workspace: hits on segments and titles, best first,
 * scored, before any page is built (the list to fuse with another ranking). Throws SearchQueryError
 * when the query holds no word to look for.
 */
export interface LexicalOptions {
  /** Sources the caller will page through (offset + limit): the loose pass runs when fewer have every word. */
  wanted?: number;
  /** The candidate plan, normally chosen from the word statistics (tests force each). */
  plan?: 'auto' | 'walk' | 'index';
  /**
   * How many of the best sources get their matching segments looked up with the ranking (default:
   * `wanted`, at least SEARCH_LIMITS.positionsFor). searchSources passes 0 and looks up its page's alone.
   */
  positionsFor?: number;
}

export async function lexicalSearch(db: Database, workspaceId: string, query: string, filters: SearchFilters = {}, options: LexicalOptions = {}): Promise<LexicalResult> {
  return withSearchSession(db, (q, parsed) => lexicalIn(q, workspaceId, query, filters, options, parsed), query);
}

/** `parsedText`: websearch_to_tsquery's text of the query when the session parsed it already. */
async function lexicalIn(db: Queryable, workspaceId: string, query: string, filters: SearchFilters, options: LexicalOptions, parsedText?: string): Promise<LexicalResult> {
  const parsed = parsedText === undefined ? await parseQuery(db, query) : readParsed(parsedText);
  if (!parsed) {
    throw new SearchQueryError('The query has no word to search for: it holds only common words such as "a" or "the", or only excluded words. Add a meaningful word.');
  }
  const { tsquery, shape } = parsed;
  const wanted = options.wanted ?? SEARCH_LIMITS.maxLimit;
  const stats = await wordStats(db);
  // Beyond this share of the sources a word is cheaper to find by walking them newest first.
  const plan = options.plan ?? 'auto';
  const crossover = plan === 'walk' ? 0 : plan === 'index' ? 1 : Math.sqrt(SEARCH_LIMITS.sourceCandidates / Math.max(stats.sources, SEARCH_LIMITS.sourceCandidates));
  const shares = shape.positives.map((p) => operandShare(p, stats));
  // All the words match at most as many sources as the rarest: the bitmap is chosen only when that
  // bound makes it cheap; otherwise the walk, which checks the estimate as it goes.
  const strictShare = shape.topLevelOr ? operandShare(tsquery, stats) : Math.min(...shares);
  // A walk reads at most twice the sources the estimate needs to meet the cap, and never more than
  // the bitmap's bound at the crossover (then, finding too few, it hands over to the bitmap).
  const walkFor = (share: number) => ({
    limit: Math.ceil(Math.min((2 * SEARCH_LIMITS.sourceCandidates) / Math.max(share, 1e-9), Math.sqrt(SEARCH_LIMITS.sourceCandidates * Math.max(stats.sources, 1)))),
  });
  const walkStrict = plan === 'walk' || strictShare > crossover;
  const strict = await sourcePass(db, workspaceId, filters, [tsquery], tsquery, undefined, walkStrict ? walkFor(strictShare) : undefined);
  const rows: Array<PassRow & { strict: boolean }> = strict.rows.map((r) => ({ ...r, strict: true }));
  let capped = strict.capped;
  let matched: LexicalResult['matched'] = rows.length ? 'all_words' : 'none';
  // Excerpts mark every word of the query, wherever they are.
  const highlightQuery = shape.topLevelOr ? tsquery : anyOf(shape);
  // Loose pass: any of the words, when the strict one cannot fill the page asked for.
  if (!shape.topLevelOr && shape.positives.length > 1 && rows.length < wanted) {
    const idf = shares.map((s) => Math.log(1 + 1 / s));
    const total = idf.reduce((a, b) => a + b, 0);
    const single = shape.positives.map((p) => anyOf(shape, [p]));
    const weights = { operands: single, weights: idf.map((w) => w / total) };
    // The rarest words bring candidates through the index, each its share of the cap, as long as their
    // bitmaps together stay under the crossover; the others together through a walk newest first.
    const byRarity = shares.map((share, i) => ({ share, i })).sort((a, b) => a.share - b.share);
    const indexed = new Set<number>();
    let indexedShare = 0;
    for (const { share, i } of byRarity) {
      if (plan === 'walk' || indexedShare + share > crossover) break;
      indexed.add(i);
      indexedShare += share;
    }
    const uncommon = single.filter((_, i) => indexed.has(i));
    const common = shape.positives.filter((_, i) => !indexed.has(i));
    const commonShare = Math.min(1, shares.filter((_, i) => !indexed.has(i)).reduce((a, b) => a + b, 0));
    const none = { rows: [] as PassRow[], capped: false };
    const byIndex = uncommon.length ? await sourcePass(db, workspaceId, filters, uncommon, highlightQuery, weights) : none;
    const byWalk = common.length ? await sourcePass(db, workspaceId, filters, [anyOf(shape, common)], highlightQuery, weights, walkFor(commonShare)) : none;
    capped ||= byIndex.capped || byWalk.capped;
    const have = new Set(rows.map((r) => r.source_id));
    for (const r of [...byIndex.rows, ...byWalk.rows]) {
      if (have.has(r.source_id)) continue;
      have.add(r.source_id);
      rows.push({ ...r, strict: false });
    }
    if (matched === 'none' && rows.length) matched = 'some_words';
  }
  const occurredAt = new Map(rows.map((r) => [r.source_id, r.occurred_at]));
  // A source's score: its cover density in [0, 1) (ts_rank_cd over title A + segments D, normalised),
  // times the share of the query's weight it covers (1 in the strict pass); plus TITLE_WEIGHT times the
  // same for its title. Sources with every word come first whatever their score.
  const scored = rows.map((r) => ({
    ...r,
    score: Math.min(1, r.coverage) * (1 + r.rank) + (r.title_rank === null && r.title_coverage === 0 ? 0 : TITLE_WEIGHT * Math.min(1, r.title_coverage) * (1 + (r.title_rank ?? 0))),
  }));
  scored.sort((a, b) => Number(b.strict) - Number(a.strict) || b.score - a.score || compareNewest(occurredAt, a.source_id, b.source_id));
  // Segment positions for the sources a page can reach (the rest keep a source-level hit).
  const reach = options.positionsFor ?? Math.max(wanted, SEARCH_LIMITS.positionsFor);
  const positions = await matchingSegments(db, scored.slice(0, reach).map((r) => r.source_id), highlightQuery);
  const hits: LexicalHit[] = scored.flatMap((r): LexicalHit[] => {
    const at = positions.get(r.source_id);
    const base = { sourceId: r.source_id, score: r.score, strict: r.strict, titleMatched: r.title_rank !== null || r.title_coverage > 0 };
    return at?.length ? at.map((position) => ({ ...base, position })) : [{ ...base, position: null }];
  });
  return { hits, matched, capped, highlightQuery, occurredAt, withAllWords: strict.rows.length };
}

function compareNewest(occurredAt: Map<string, Date>, a: string, b: string): number {
  const ta = occurredAt.get(a)?.getTime() ?? 0;
  const tb = occurredAt.get(b)?.getTime() ?? 0;
  return tb - ta || (a < b ? 1 : a > b ? -1 : 0);
}

/** A source ranked from its hits. */
export interface RankedSource {
  sourceId: string;
  score: number;
  /** Matching segment positions, best first. */
  positions: number[];
  titleMatched: boolean;
}

/** The hits grouped by source, in the order of the hits (already ranked). */
export function rankSources(hits: readonly LexicalHit[]): RankedSource[] {
  const by = new Map<string, RankedSource>();
  for (const h of hits) {
    let s = by.get(h.sourceId);
    if (!s) {
      s = { sourceId: h.sourceId, score: h.score, positions: [], titleMatched: h.titleMatched };
      by.set(h.sourceId, s);
    }
    if (h.position !== null && !s.positions.includes(h.position)) s.positions.push(h.position);
  }
  return [...by.values()];
}

// --- the page a client reads ------------------------------------------------------------------------------

export interface SearchExcerpt {
  position: number;
  speaker: string | null;
  heading: string | null;
  /** Matched words between « and », fragments joined by " … ". */
  snippet: string;
}

export interface FoundSource {
  id: string;
  title: string;
  source_type: string;
  nature: string;
  occurred_at: string;
  product_id: string;
  project_ids: string[];
  participants: number;
  segments: number;
  status: string;
  /** Relevance score (higher is better); absent when listing without a query. */
  score?: number;
  title_matched?: boolean;
  excerpts?: SearchExcerpt[];
}

export interface SearchRequest {
  query?: string;
  filters?: SearchFilters;
  sort?: 'relevance' | 'newest';
  limit?: number;
  offset?: number;
  /**
   * Further ranked lists (e.g. semantic hits: source ids with segment positions, best first), fused with
   * the lexical ranking by reciprocal-rank fusion when given. A promise is awaited once the lexical
   * ranking is ready: the two are computed at the same time.
   */
  extraRankings?: ReadonlyArray<ReadonlyArray<RankedHit>> | Promise<ReadonlyArray<ReadonlyArray<RankedHit>>>;
  /** The second stage over the first candidates of a relevance ranking (./rerank): given, it reorders them. */
  rerank?: Reranker;
}

export interface SearchPage {
  items: FoundSource[];
  offset: number;
  /** Matching sources; a lower bound when `total_is_lower_bound`. */
  total: number;
  total_is_lower_bound: boolean;
  sort: 'relevance' | 'newest';
  /** all_words, some_words (no source has every word: sources with some of them), none; absent without a query. */
  matched?: LexicalResult['matched'];
  /** How many of the sources have every word (they come first); absent without a query. */
  with_all_words?: number;
}

export const HIGHLIGHT = { start: '«', stop: '»', fragments: ' … ' } as const;
const HEADLINE_OPTIONS = `StartSel=${HIGHLIGHT.start}, StopSel=${HIGHLIGHT.stop}, MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=2, FragmentDelimiter="${HIGHLIGHT.fragments}"`;

interface SourceRow {
  id: string;
  title: string;
  type: string;
  nature: string;
  occurred_at: Date;
  product_id: string;
  project_ids: string[] | null;
  participants: number;
  segment_count: number;
  status: string;
}

const SOURCE_COLUMNS = `s.id, s.title, s.type, s.nature, s.occurred_at, s.product_id, s.project_ids,
  CASE WHEN jsonb_typeof(s.participants) = 'array' THEN jsonb_array_length(s.participants) ELSE 0 END AS participants,
  s.segment_count, s.status`;

function sourceItem(r: SourceRow): FoundSource {
  return {
    id: r.id, title: r.title, source_type: r.type, nature: r.nature, occurred_at: r.occurred_at.toISOString(), product_id: r.product_id,
    project_ids: r.project_ids ?? [], participants: r.participants, segments: r.segment_count, status: r.status,
  };
}

/** Sources without a query: newest first, the total counted up to SEARCH_LIMITS.listCount. */
async function listSources(db: Queryable, workspaceId: string, filters: SearchFilters, limit: number, offset: number): Promise<SearchPage> {
  const f = filterSql(workspaceId, filters, 1);
  const [{ rows: count }, { rows }] = await Promise.all([
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM sources s WHERE ${f.clause} LIMIT ${SEARCH_LIMITS.listCount + 1}) x`, f.params),
    db.query<SourceRow>(
      `SELECT ${SOURCE_COLUMNS} FROM sources s WHERE ${f.clause} ORDER BY s.occurred_at DESC, s.id DESC LIMIT ${limit} OFFSET ${offset}`,
      f.params,
    ),
  ]);
  const n = count[0]!.n;
  return {
    items: rows.map(sourceItem), offset, total: Math.min(n, SEARCH_LIMITS.listCount), total_is_lower_bound: n > SEARCH_LIMITS.listCount, sort: 'newest',
  };
}

/**
 * find_sources: relevance-ranked sources with their best excerpts (or newest first), paged. Without a
 * query it lists newest first. Throws SearchQueryError for a query with no word to look for.
 */
export async function searchSources(db: Database, workspaceId: string, request: SearchRequest = {}): Promise<SearchPage> {
  const limit = request.limit ?? SEARCH_LIMITS.defaultLimit;
  const offset = request.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMITS.maxLimit) throw new SearchQueryError(`limit must be a whole number from 1 to ${SEARCH_LIMITS.maxLimit}`);
  if (!Number.isInteger(offset) || offset < 0) throw new SearchQueryError('offset must be a whole number from 0');
  if (offset > SEARCH_LIMITS.maxOffset) throw new SearchQueryError(OFFSET_TOO_LARGE);
  const query = request.query?.trim() || undefined;
  return withSearchSession(db, (q, parsed) => searchIn(q, workspaceId, request, limit, offset, query, parsed), query);
}

async function searchIn(db: Queryable, workspaceId: string, request: SearchRequest, limit: number, offset: number, query: string | undefined,
  parsedText: string | undefined): Promise<SearchPage> {
  const filters = request.filters ?? {};
  if (!query) return listSources(db, workspaceId, filters, limit, offset);

  // The segments are looked up below for the page's sources alone, not for every source before the offset.
  const lexicalOrError = lexicalIn(db, workspaceId, query, filters, { wanted: offset + limit, positionsFor: 0 }, parsedText)
    .catch((error: unknown) => error as Error);
  const extra = (await request.extraRankings)?.filter((list) => list.length) ?? [];
  const lexicalOrFailure = await lexicalOrError;
  let lexical: LexicalResult;
  if (lexicalOrFailure instanceof Error) {
    // A query of common words alone ("what's up?") has nothing to match lexically; another ranking
    // (its meaning) may still answer it.
    if (!(lexicalOrFailure instanceof SearchQueryError) || extra.length === 0) throw lexicalOrFailure;
    lexical = { hits: [], matched: 'none', capped: false, withAllWords: 0, highlightQuery: '', occurredAt: new Map() };
  } else {
    lexical = lexicalOrFailure;
  }
  const sort = request.sort ?? 'relevance';
  let ranked: { sourceId: string; score: number; positions: number[]; titleMatched: boolean }[] = rankSources(lexical.hits);
  if (extra.length) {
    const titled = new Set(ranked.filter((r) => r.titleMatched).map((r) => r.sourceId));
    ranked = fuseRankings([lexical.hits, ...extra]).map((f) => ({ ...f, titleMatched: titled.has(f.sourceId) }));
  }
  if (sort === 'relevance' && request.rerank && ranked.length > 1 && offset < RERANK.depth) {
    ranked = await rerankTop(ranked, query, (top) => candidateTexts(db, workspaceId, top), request.rerank);
  }
  if (sort === 'newest') {
    // Sources the extra rankings brought have no date here yet: read them.
    const missing = ranked.map((r) => r.sourceId).filter((id) => !lexical.occurredAt.has(id));
    if (missing.length) {
      const { rows } = await db.query<{ id: string; occurred_at: Date }>('SELECT id, occurred_at FROM sources WHERE workspace_id = $1 AND id = ANY($2::text[])', [workspaceId, missing]);
      for (const r of rows) lexical.occurredAt.set(r.id, r.occurred_at);
    }
    ranked = [...ranked].sort((a, b) => compareNewest(lexical.occurredAt, a.sourceId, b.sourceId));
  }
  const page = ranked.slice(offset, offset + limit);
  // The segments holding the words, of this page's sources alone, best first; then those another ranking
  // (meaning) brought. Lexically 'none' is exhaustive (the passes fall back to the index when a walk
  // finds too few): no source within the filters holds the words, so no segment is looked for.
  if (page.length && lexical.matched !== 'none') {
    const found = await matchingSegments(db, page.map((r) => r.sourceId), lexical.highlightQuery);
    for (const r of page) {
      const words = found.get(r.sourceId) ?? [];
      if (words.length) r.positions = [...words, ...r.positions.filter((p) => !words.includes(p))];
    }
  }
  // The page's sources with their excerpts, in one statement: the positions chosen above, or, for a
  // source found for its meaning alone (no word matches), its opening.
  const wanted = page.map((r) => ({ id: r.sourceId, positions: r.positions.slice(0, SEARCH_LIMITS.excerptsPerSource) }));
  const { rows } = await db.query<SourceRow & { excerpts: SearchExcerpt[] }>(
    `SELECT ${SOURCE_COLUMNS}, coalesce((
              SELECT json_agg(json_build_object('position', e.position, 'speaker', e.speaker, 'heading', e.heading,
                       'snippet', ts_headline('english', e.text, $2::tsquery, $3)) ORDER BY e.rank)
                FROM (SELECT g.position, g.speaker, g.heading, g.text, array_position(w.positions, g.position) AS rank
                        FROM source_segments g WHERE g.source_id = w.id AND g.position = ANY(w.positions)
                      UNION ALL
                      (SELECT g.position, g.speaker, g.heading, g.text, 1 FROM source_segments g
                        WHERE cardinality(w.positions) = 0 AND g.source_id = w.id ORDER BY g.position LIMIT 1)) e), '[]'::json) AS excerpts
       FROM json_to_recordset($1::json) AS w(id text, positions int[])
       JOIN sources s ON s.id = w.id AND s.workspace_id = $4`,
    [JSON.stringify(wanted), lexical.highlightQuery, HEADLINE_OPTIONS, workspaceId],
  );
  const sourceById = new Map(rows.map((s) => [s.id, s]));
  const items: FoundSource[] = [];
  for (const r of page) {
    const row = sourceById.get(r.sourceId);
    if (!row) continue; // another ranking named a source outside this workspace: never shown
    items.push({ ...sourceItem(row), score: Math.round(r.score * 10_000) / 10_000, title_matched: r.titleMatched, excerpts: row.excerpts });
  }
  return { items, offset, total: ranked.length, total_is_lower_bound: lexical.capped, sort, matched: lexical.matched, with_all_words: lexical.withAllWords };
}
