import { sifWeights, tokenize, stem } from './embed';
import type { WordVectors } from './model';

/**
 * How well a candidate's words answer a query's words, one word at a time (issue 46: the second stage of
 * search). An average of word vectors blurs "card not arrived" with "card not working"; here each query
 * word looks for its best match among the candidate's words, as late-interaction rankers (ColBERT's
 * MaxSim) and the soft cosine do: the same stem counts 1, another word its cosine in the word-vector
 * space above MATCH_FLOOR, rescaled and squared so only close words count much, and a word with no
 * match 0. Query words weigh by rarity (the SIF weight embeddings use), so "arrived" decides, "my"
 * does not. The score is the weighted mean over the query's words, from 0 to 1.
 */
export interface WordMatcher {
  /** One score per candidate text, in order. */
  scores(query: string, candidates: readonly string[]): number[];
}

/** Cosines at or below this are unrelated words (measured on CLINC150 within one domain: tools/eval). */
const MATCH_FLOOR = 0.3;

export function createWordMatcher(model: WordVectors): WordMatcher {
  const weights = sifWeights(model);
  const dims = model.dims;
  const unit = (row: number) => {
    const v = new Float32Array(dims);
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += (v[d] = model.matrix[row * dims + d]!) ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dims; d++) v[d]! /= norm;
    return v;
  };
  return {
    scores(query, candidates) {
      const words = [...new Set(tokenize(query))].map((w) => {
        const row = model.rowOf.get(w);
        return { stem: stem(w), weight: row === undefined ? 1 : weights[row]!, vector: row === undefined ? undefined : unit(row) };
      });
      const total = words.reduce((sum, w) => sum + w.weight, 0);
      if (total === 0) return candidates.map(() => 0);
      const queryStems = new Map(words.map((w, i) => [w.stem, i]));
      // Each candidate word's match with every query word, once per call: the candidates share most of their words.
      const matchesOf = new Map<string, Float32Array>();
      const matches = (token: string) => {
        let m = matchesOf.get(token);
        if (!m) {
          const row = model.rowOf.get(token);
          const v = row === undefined ? undefined : unit(row);
          m = Float32Array.from(words, (w) => {
            if (!w.vector || !v) return 0;
            let c = 0;
            for (let d = 0; d < dims; d++) c += w.vector[d]! * v[d]!;
            return c <= MATCH_FLOOR ? 0 : ((c - MATCH_FLOOR) / (1 - MATCH_FLOOR)) ** 2;
          });
          // The same stem is a match in full (arrived, arrive).
          const same = queryStems.get(stem(token));
          if (same !== undefined) m[same] = 1;
          matchesOf.set(token, m);
        }
        return m;
      };
      return candidates.map((text) => {
        const best = new Float32Array(words.length);
        for (const token of new Set(tokenize(text))) {
          const m = matches(token);
          for (let i = 0; i < words.length; i++) if (m[i]! > best[i]!) best[i] = m[i]!;
        }
        let sum = 0;
        words.forEach((w, i) => (sum += w.weight * best[i]!));
        return sum / total;
      });
    },
  };
}
