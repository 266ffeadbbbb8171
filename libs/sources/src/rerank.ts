import { fusedOrder } from '@loupe/semantics';
import type pg from 'pg';
import { RRF_K } from './fuse';
import { textToEmbed } from './text-to-embed';

/**
 * The second stage of find_sources (issue 46): the first RERANK_DEPTH sources of the fused ranking
 * (words + meaning) ranked again up to three ways, each fused with the first ranking by reciprocal rank:
 *  - by meaning, against the query moved toward its first FEEDBACK results (pseudo-relevance feedback:
 *    the results a search gets right say what the query is about better than its few words);
 *  - word by word: each query word's best match among the source's words (libs/semantics' word matcher);
 *  - by the workspace's own vocabulary, once the worker has learned it (./vocabulary): the query, moved
 *    toward the same first results, and each candidate folded into its latent space (`RerankScores.latent`).
 * It runs twice: the second pass takes its feedback from the first pass's leaders, which are more often
 * right than the first stage's, and starts from the first pass's order (iterated feedback, as Rocchio's
 * rounds); the word-by-word scores do not depend on the order and are reused.
 * Only the order within the first RERANK_DEPTH changes: a later page never holds a source of an earlier
 * one, and the stage costs the same at a million sources as at a thousand.
 * Measured with `npm run eval:evidence -- --within-domain` (docs/architecture/search.md).
 */
export const RERANK = { depth: 50, feedback: 10, beta: 2, weights: { feedback: 1, words: 0.5, latent: 0.5 }, textChars: 2_000 } as const;

export interface RerankScores {
  /** Per candidate, in order: its score against the moved query (NaN: no vector); absent when the query has none. */
  feedback?: number[];
  /** Per candidate: its word-by-word match; absent on the second pass (`again`), which reuses the first's. */
  words?: number[];
  /**
   * Per candidate: its likeness to the query in the workspace's own vocabulary (latent semantic analysis
   * of its sources, libs/semantics' latentTerms); absent when the workspace has none.
   */
  latent?: number[];
  /**
   * The second pass, when the scorer ran it itself: the candidates' positions in the first pass's fused
   * order (fusedOrder with RERANK.weights and RRF_K), and the order-dependent rankings in that order.
   */
  again?: { order: number[]; feedback?: number[]; latent?: number[] };
}

/**
 * Scores the candidates (ids with their texts, best first: the first FEEDBACK of them are the feedback)
 * against the query; `again`: the second pass, which needs no word-by-word scores.
 */
export type Reranker = (query: string, candidates: Array<{ id: string; text: string }>, again?: boolean) => Promise<RerankScores>;

interface Ranked {
  sourceId: string;
  score: number;
  positions: number[];
}

/**
 * What each candidate says where it matched: its title (unless Loupe made it up: textToEmbed) and the (at most two) segments that made it rank,
 * or, when the ranking named none (a match on the whole source, or by meaning), its opening segments;
 * cut to RERANK.textChars. One statement for the lot, by primary key: no segment is parsed again.
 */
export async function candidateTexts(db: Pick<pg.Pool, 'query'>, workspaceId: string, top: readonly Ranked[]): Promise<string[]> {
  const wanted = top.map((r) => ({ id: r.sourceId, positions: r.positions.slice(0, 2) }));
  const { rows } = await db.query<{ id: string; title: string; type: string; occurred_at: Date; body: string }>(
    `SELECT w.id, s.title, s.type, s.occurred_at, left(coalesce((
              SELECT string_agg(g.text, E'\\n' ORDER BY g.position) FROM (
                SELECT g.text, g.position FROM source_segments g
                 WHERE g.source_id = w.id AND (cardinality(w.positions) = 0 OR g.position = ANY(w.positions))
                 ORDER BY g.position LIMIT CASE WHEN cardinality(w.positions) = 0 THEN 8 ELSE 2 END) g), ''), ${RERANK.textChars}) AS body
       FROM json_to_recordset($2::json) AS w(id text, positions int[])
       JOIN sources s ON s.id = w.id AND s.workspace_id = $1`,
    [workspaceId, JSON.stringify(wanted)],
  );
  const textOf = new Map(rows.map((r) => [r.id, textToEmbed(r, r.body, RERANK.textChars)]));
  return top.map((r) => textOf.get(r.sourceId) ?? '');
}

/** The ranking with its first RERANK.depth reordered by two passes of fused ranks; the rest as it was. */
export async function rerankTop<T extends Ranked>(
  ranked: readonly T[], query: string, texts: (top: readonly T[]) => Promise<string[]>, scorer: Reranker,
): Promise<T[]> {
  if (ranked.length < 2) return [...ranked];
  const top = ranked.slice(0, RERANK.depth);
  const candidateText = await texts(top);
  const candidates = top.map((r, i) => ({ id: r.sourceId, text: candidateText[i]! }));
  const first = await scorer(query, candidates);
  // The search thread runs the second pass in the same message (`again`); another scorer is asked again.
  const once = first.again?.order ?? fusedOrder(first, top.length, RERANK.weights, RRF_K);
  const second = first.again ?? (await scorer(query, once.map((i) => candidates[i]!), true));
  const words = first.words && once.map((i) => first.words![i]!);
  const twice = fusedOrder({ feedback: second.feedback, words, latent: second.latent }, top.length, RERANK.weights, RRF_K);
  return [...twice.map((j) => top[once[j]!]!), ...ranked.slice(RERANK.depth)];
}
