import type { Assignment } from './clustering';
import type { ReclusterInput, ReclusterOutput } from './recluster';
import type { IndexFilter, IndexHit, IndexItem } from './vector-index';
import type { StageWeights } from './fused-order';

/** Messages between the semantics thread and its callers. */
export type SemanticsRequest =
  | { id: number; op: 'embed'; texts: string[]; themes?: Array<string | null> }
  | ({ id: number; op: 'recluster' } & ReclusterInput)
  | { id: number; op: 'assign'; vectors: Float32Array; dims: number; sums: Float32Array; sizes: Int32Array; threshold: number }
  /** `fill`: the first page of a collection (created if missing); later pages of a missing one are refused (`missing`). */
  | { id: number; op: 'index-upsert'; collection: string; items: IndexItem[]; removed?: string[]; fill?: boolean }
  | { id: number; op: 'index-search'; collection: string; text: string; k: number; filter?: IndexFilter; minScore?: number }
  /**
   * The second stage of a search over its first candidates (ids, best first, with their texts): each
   * candidate's score against the query moved toward the first `feedback` of them, its word-by-word match
   * (unless `words` is false), and its likeness to the query in the collection's vocabulary (vocabulary-set),
   * moved the same way, when the thread holds one. With `twice` (and words), the second pass as well: the
   * candidates in the first pass's fused order (fusedOrder with these weights) and the order-dependent
   * rankings again in that order, in one message.
   */
  | {
    id: number; op: 'rerank'; collection: string; text: string; ids: string[]; texts: string[]; feedback: number; beta: number; words: boolean;
    twice?: { weights: StageWeights; k: number };
  }
  /** A set of texts' own vocabulary (latentTerms at `rank`), encoded (encodeLatentTerms) to be stored. */
  | { id: number; op: 'vocabulary-learn'; texts: string[]; rank: number }
  /** The collection's vocabulary (encoded) for its searches' second stage; null drops it. */
  | { id: number; op: 'vocabulary-set'; collection: string; model: Uint8Array | null }
  | { id: number; op: 'index-drop'; collection: string }
  | { id: number; op: 'version' };

export interface SemanticsResults {
  embed: { vectors: Float32Array; dims: number; denseDims: number; keywords: string[][]; version: string };
  recluster: ReclusterOutput;
  assign: Assignment;
  /** The collection's size after the change. */
  'index-upsert': { size: number; bytes: number; missing: boolean };
  /**
   * `loaded` false: the thread holds no such collection (never filled, or the thread was restarted);
   * `unavailable`: the embedding provider did not embed the query (why), so there are no hits.
   */
  'index-search': { hits: IndexHit[]; loaded: boolean; unavailable?: string };
  /**
   * Per candidate: `feedback` (NaN where not indexed; absent when the query has no vector), `words` (when
   * asked), and `latent` when the thread holds the collection's vocabulary (`vocabulary`).
   */
  rerank: { feedback?: number[]; words?: number[]; latent?: number[]; again?: { order: number[]; feedback?: number[]; latent?: number[] }; vocabulary: boolean };
  'vocabulary-learn': { model: Uint8Array; terms: number };
  'vocabulary-set': { terms: number };
  'index-drop': { dropped: boolean };
  /** The embedding's version, known without asking a provider. */
  version: { version: string };
}

export type SemanticsResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };
