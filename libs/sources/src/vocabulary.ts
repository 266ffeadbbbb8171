import type pg from 'pg';
import { latentRank, type SemanticsThread } from '@loupe/semantics';
import { candidateTexts } from './rerank';

/**
 * A workspace's own vocabulary for search (issue 46): latent semantic analysis (libs/semantics latentTerms)
 * of an even sample of its sources, so the second stage of find_sources (./rerank) can tell that "freeze"
 * and "lock" mean the same there, which general word vectors know nothing of. Measured in process with
 * tools/eval/rerank-lab.ts and through the service with `npm run eval:evidence -- --within-domain`
 * (docs/architecture/search.md).
 *
 * The worker learns it after embedding a workspace's sources, once it has `minSources` and again each time it
 * has grown by a quarter, and stores it in `search_vocabularies`; every MCP server reads it into its search
 * thread (./vocabulary-loader). It holds words of the sources: a deletion or an erasure empties it in its own
 * transaction (EMPTY_VOCABULARY), and the worker learns it again from what is left.
 */
export const VOCABULARY = {
  /** Sources a workspace needs before it has a vocabulary: fewer say little about how its words go together. */
  minSources: 50,
  /** Learned again once the sources embedded since reach this share of those it was learned among. */
  growth: 0.25,
  /**
   * Sources it is learned from, at most: an even sample (by a hash of the id, so the same sources stay in it).
   * latentTerms over 5,000 texts takes about a second of the worker's semantics thread.
   */
  sample: 5_000,
} as const;

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Empties a workspace's vocabulary ($1 workspace, $2 when), in the transaction that deletes or redacts sources:
 * their words go with them. Its generation is raised, so a vocabulary being learned meanwhile (from texts read
 * before) is not written; a workspace that had none gets an empty row for the same reason. The retention sweep
 * queues the worker to learn it again (vocabularyToLearnAgain).
 */
export const EMPTY_VOCABULARY = `INSERT INTO search_vocabularies (workspace_id, sources, sampled, built_at, generation) VALUES ($1, 0, 0, $2, 1)
  ON CONFLICT (workspace_id) DO UPDATE SET model = NULL, built_at = excluded.built_at, generation = search_vocabularies.generation + 1`;

/** Sources read per statement while learning. */
const READ_SLICE = 500;

export interface VocabularyLearned {
  learned: boolean;
  /** Sources of the workspace when it was learned, the sample's size, and the terms it kept. */
  sources?: number;
  sampled?: number;
  terms?: number;
}

/**
 * Called by the worker after embedding `embedded` sources of a workspace: counts them toward the next learning
 * and, unless `learn` is false, learns the vocabulary when it is due (none yet, emptied, or grown by VOCABULARY.growth).
 */
export async function refreshVocabulary(
  deps: { pool: pg.Pool; semantics: SemanticsThread; now?: () => Date }, workspaceId: string, embedded: number, options: { learn?: boolean } = {},
): Promise<VocabularyLearned> {
  const { rows } = await deps.pool.query<{ sources: number; grown: number; empty: boolean; generation: number }>(
    'UPDATE search_vocabularies SET grown = grown + $2 WHERE workspace_id = $1 RETURNING sources, grown, model IS NULL AS empty, generation',
    [workspaceId, embedded],
  );
  const state = rows[0];
  if (options.learn === false) return { learned: false };
  if (state && !state.empty && state.grown < VOCABULARY.growth * state.sources) return { learned: false };
  const { rows: few } = await deps.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM sources WHERE workspace_id = $1 LIMIT ${VOCABULARY.minSources}) x`, [workspaceId],
  );
  if (few[0]!.n < VOCABULARY.minSources) {
    // Emptied, and too few sources left to learn it again: the sweep stops asking.
    if (state?.empty) await deps.pool.query('UPDATE search_vocabularies SET sources = $2 WHERE workspace_id = $1 AND model IS NULL', [workspaceId, few[0]!.n]);
    return { learned: false };
  }
  return learnVocabulary(deps, workspaceId, state?.generation ?? 0);
}

/** Learns the workspace's vocabulary from an even sample of its sources and stores it, unless emptied meanwhile. */
async function learnVocabulary(deps: { pool: pg.Pool; semantics: SemanticsThread; now?: () => Date }, workspaceId: string, generation: number): Promise<VocabularyLearned> {
  const { rows: counted } = await deps.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sources WHERE workspace_id = $1', [workspaceId]);
  const sources = counted[0]!.n;
  const { rows: sample } = await deps.pool.query<{ id: string }>(
    `SELECT id FROM sources WHERE workspace_id = $1 ORDER BY md5(id), id LIMIT ${VOCABULARY.sample}`, [workspaceId],
  );
  const texts: string[] = [];
  // Each as the second stage reads a candidate no segment ranked: title and opening (a source deleted meanwhile reads '').
  for (let i = 0; i < sample.length; i += READ_SLICE) {
    const slice = sample.slice(i, i + READ_SLICE).map((r) => ({ sourceId: r.id, score: 0, positions: [] }));
    texts.push(...(await candidateTexts(deps.pool, workspaceId, slice)).filter(Boolean));
  }
  if (texts.length < VOCABULARY.minSources) return { learned: false };
  const out = await deps.semantics.run('vocabulary-learn', { texts, rank: latentRank(texts.length) });
  const { rowCount } = await deps.pool.query(
    `INSERT INTO search_vocabularies (workspace_id, sources, sampled, grown, built_at, generation, model) VALUES ($1, $2, $3, 0, $4, $5, $6)
       ON CONFLICT (workspace_id) DO UPDATE SET sources = excluded.sources, sampled = excluded.sampled, grown = 0, built_at = excluded.built_at, model = excluded.model
       WHERE search_vocabularies.generation = excluded.generation`,
    [workspaceId, sources, texts.length, deps.now?.() ?? new Date(), generation, Buffer.from(out.model.buffer, out.model.byteOffset, out.model.byteLength)],
  );
  if (!rowCount) return { learned: false };
  return { learned: true, sources, sampled: texts.length, terms: out.terms };
}

/** Workspaces whose vocabulary a deletion or an erasure emptied, to be learned again (by their embedding job). */
export async function vocabularyToLearnAgain(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ workspace_id: string }>(`SELECT workspace_id FROM search_vocabularies WHERE model IS NULL AND sources >= ${VOCABULARY.minSources}`);
  return rows.map((r) => r.workspace_id);
}

/**
 * Workspaces with enough sources that never had a vocabulary (their sources were embedded before this release,
 * or while no worker ran): the worker queues their embedding job at its start, which learns it.
 */
export async function vocabularyNeverLearned(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT w.id FROM workspaces w
      WHERE NOT EXISTS (SELECT 1 FROM search_vocabularies v WHERE v.workspace_id = w.id)
        AND (SELECT count(*) FROM (SELECT 1 FROM sources s WHERE s.workspace_id = w.id LIMIT ${VOCABULARY.minSources}) x) >= ${VOCABULARY.minSources}`,
  );
  return rows.map((r) => r.id);
}

export interface VocabularyState {
  sources: number;
  sampled: number;
  grown: number;
  builtAt: Date;
  generation: number;
  /** Whether it holds a vocabulary (not emptied), and its encoded size. */
  learned: boolean;
  bytes: number;
}

/** Where a workspace's vocabulary stands (none: never learned nor emptied). */
export async function vocabularyState(db: Queryable, workspaceId: string): Promise<VocabularyState | undefined> {
  const { rows } = await db.query<{ sources: number; sampled: number; grown: number; built_at: Date; generation: number; bytes: number | null }>(
    'SELECT sources, sampled, grown, built_at, generation, octet_length(model) AS bytes FROM search_vocabularies WHERE workspace_id = $1', [workspaceId],
  );
  const r = rows[0];
  return r && { sources: r.sources, sampled: r.sampled, grown: r.grown, builtAt: r.built_at, generation: r.generation, learned: r.bytes !== null, bytes: r.bytes ?? 0 };
}
