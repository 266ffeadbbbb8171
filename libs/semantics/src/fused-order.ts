/** Per candidate, in the order given: the second stage's rankings of a search (libs/sources/src/rerank.ts). */
export interface StageScores {
  feedback?: readonly number[] | undefined;
  words?: readonly number[] | undefined;
  latent?: readonly number[] | undefined;
}

export interface StageWeights {
  feedback: number;
  words: number;
  latent: number;
}

/** Positions (0-based) from best to worst score; NaN scores go last, ties keep their order. */
export function rankOrder(scores: readonly number[]): number[] {
  return scores
    .map((score, i) => [Number.isNaN(score) ? -Infinity : score, i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .map(([, i]) => i);
}

/**
 * Positions of `count` candidates, best first: each one's place in the order given (1 / (k + place)) plus,
 * for each ranking present, its weight / (k + its rank there): reciprocal-rank fusion.
 */
export function fusedOrder(scores: StageScores, count: number, weights: StageWeights, k: number): number[] {
  const fused = Array.from({ length: count }, (_, i) => ({ i, score: 1 / (k + i + 1) }));
  const add = (list: readonly number[] | undefined, weight: number) => {
    if (!list) return;
    rankOrder(list).forEach((i, rank) => (fused[i]!.score += weight / (k + rank + 1)));
  };
  add(scores.feedback, weights.feedback);
  add(scores.words, weights.words);
  add(scores.latent, weights.latent);
  return fused.sort((a, b) => b.score - a.score || a.i - b.i).map((f) => f.i);
}
