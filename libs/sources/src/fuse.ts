/**
 * Reciprocal-rank fusion (Cormack, Clarke & Büttcher 2009) of ranked lists of hits, at source level.
 *
 * Each list is ordered best first and may name a source several times (one hit per matching segment);
 * a source's rank in a list is the place of its first hit among the list's distinct sources. Its fused
 * score is Σ weight / (k + rank) over the lists that hold it. The segment positions of every list are
 * kept, best first, so the caller can show the excerpts that made the source rank.
 */
export interface RankedHit {
  sourceId: string;
  /** The matching segment, or null for a hit on the source as a whole (its title). */
  position: number | null;
}

export interface FusedSource {
  sourceId: string;
  score: number;
  /** Segment positions from every list, best first in the order of the lists' ranks, without repeats. */
  positions: number[];
  /** The source's 1-based rank in each list, or null where the list does not hold it. */
  ranks: (number | null)[];
}

export const RRF_K = 60;

export function fuseRankings(lists: ReadonlyArray<ReadonlyArray<RankedHit>>, options: { k?: number; weights?: readonly number[] } = {}): FusedSource[] {
  const k = options.k ?? RRF_K;
  const fused = new Map<string, FusedSource & { best: number }>();
  lists.forEach((list, li) => {
    const weight = options.weights?.[li] ?? 1;
    let rank = 0;
    const seen = new Set<string>();
    for (const hit of list) {
      let entry = fused.get(hit.sourceId);
      if (!entry) {
        entry = { sourceId: hit.sourceId, score: 0, positions: [], ranks: lists.map(() => null), best: Infinity };
        fused.set(hit.sourceId, entry);
      }
      if (!seen.has(hit.sourceId)) {
        seen.add(hit.sourceId);
        rank++;
        entry.ranks[li] = rank;
        entry.score += weight / (k + rank);
        entry.best = Math.min(entry.best, rank);
      }
      if (hit.position !== null && !entry.positions.includes(hit.position)) entry.positions.push(hit.position);
    }
  });
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.best - b.best || (a.sourceId < b.sourceId ? -1 : 1))
    .map(({ best: _best, ...rest }) => rest);
}
