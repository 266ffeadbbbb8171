import type { WordVectors } from './model';
import { normalize } from './vectors';

/** Lower-case word tokens: letters and digits; apostrophes and hyphens split words ("don't" → don, t). */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

// a = 3e-3 rather than the paper's 1e-3: measured on labelled short texts (tools/eval), a little better for clustering.
const SIF_A = 3e-3;

/**
 * SIF weight a / (a + p(w)) of the word at frequency rank `row` (Arora et al. 2017), with p(w) from
 * Zipf's law over the vectors' own ranking: frequent words ("the", "i", "to") weigh ~0.01, rare ones ~1.
 */
export function sifWeights(model: WordVectors): Float32Array {
  const harmonic = Math.log(model.rankedFrom) + 0.5772;
  const weights = new Float32Array(model.scales.length);
  for (let r = 0; r < weights.length; r++) {
    const p = 1 / ((r + 1) * harmonic);
    weights[r] = SIF_A / (SIF_A + p);
  }
  return weights;
}

/** Words more frequent than this rank (the, customer, problem…) say little about what a text is about. */
const KEYWORD_MIN_RANK = 1_000;
/** Dimensions of the lexical part: hashed word stems and pairs of them. */
export const LEXICAL_DIMS = 128;
/** The version stamped beside vectors of the built-in embedder over the word vectors `name`. */
export const builtinVersionOf = (name: string) => `sif-3e-3+lex${LEXICAL_DIMS}:${name}`;
/** Weight of a theme given by the calling model against the text itself. */
const THEME_WEIGHT = 0.5;

/**
 * A text's vector has two unit-length parts, stored side by side:
 *  - dense (the model's dims): the SIF-weighted average of its word vectors, which meets synonyms and
 *    paraphrases but knows nothing of product names and is blurred by a shared common component
 *    (removed per set, see ./common);
 *  - lexical (LEXICAL_DIMS): its word stems and stem pairs hashed into signed buckets (the hashing trick),
 *    weighted by SIF too, which holds on to exact words ("Okta", "export") that word vectors miss.
 * `combine` (./common) joins them into one unit vector once the dense part is centred.
 */
export interface Embedder {
  /** Identifies the representation: stored beside each vector so a change re-embeds. */
  version: string;
  /** Dense dims + LEXICAL_DIMS. */
  dims: number;
  denseDims: number;
  /** The text's vector (dense part, then lexical part); a part is zero when the text has no word for it. */
  embed(text: string, theme?: string | null): Float32Array;
  /** The text's distinctive words (rare in English, or unknown to the model such as product names), most frequent first. */
  keywords(text: string, max?: number): string[];
}

/** A word without its commonest English endings (cards → card, arrived → arriv), so forms of a word match. */
export function stem(word: string): string {
  if (word.length <= 4) return word;
  return word.replace(/ies$/, 'y').replace(/(ing|ed|es|s)$/, '');
}

/** FNV-1a, 32 bits. */
export function hashOf(feature: string): number {
  let h = 2166136261;
  for (let i = 0; i < feature.length; i++) {
    h ^= feature.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

export function createEmbedder(model: WordVectors): Embedder {
  const weights = sifWeights(model);
  const { matrix, scales, rowOf } = model;
  const denseDims = model.dims;
  const dims = denseDims + LEXICAL_DIMS;
  const weightOf = (token: string) => {
    const row = rowOf.get(token);
    return row === undefined ? 1 : weights[row]!;
  };

  function embedText(text: string): Float32Array {
    const v = new Float32Array(dims);
    const tokens = tokenize(text);
    const dense = v.subarray(0, denseDims);
    for (const token of tokens) {
      const row = rowOf.get(token);
      if (row === undefined) continue;
      const w = weights[row]! * scales[row]!;
      const base = row * denseDims;
      for (let d = 0; d < denseDims; d++) dense[d]! += w * matrix[base + d]!;
    }
    normalize(dense);
    const lexical = v.subarray(denseDims);
    const stems = tokens.map(stem);
    const features = new Map<string, number>();
    stems.forEach((s, i) => {
      features.set(s, weightOf(tokens[i]!));
      if (i > 0) features.set(`${stems[i - 1]} ${s}`, weightOf(tokens[i - 1]!) * weightOf(tokens[i]!));
    });
    for (const [feature, w] of features) {
      const h = hashOf(feature);
      lexical[(h >>> 1) % LEXICAL_DIMS]! += h & 1 ? w : -w;
    }
    normalize(lexical);
    return v;
  }

  return {
    version: builtinVersionOf(model.name),
    dims,
    denseDims,
    embed(text, theme) {
      const v = embedText(text);
      if (!theme?.trim()) return v;
      const t = embedText(theme);
      for (const [from, to] of [[0, denseDims], [denseDims, dims]] as const) {
        const part = v.subarray(from, to);
        const themePart = t.subarray(from, to);
        for (let d = 0; d < part.length; d++) part[d] = (1 - THEME_WEIGHT) * part[d]! + THEME_WEIGHT * themePart[d]!;
        normalize(part);
      }
      return v;
    },
    keywords(text, max = 24) {
      const counts = new Map<string, number>();
      for (const token of tokenize(text)) {
        if (token.length < 3 || /^\d+$/.test(token)) continue;
        const row = rowOf.get(token);
        if (row !== undefined && row < KEYWORD_MIN_RANK) continue;
        counts.set(token, (counts.get(token) ?? 0) + 1);
      }
      return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, max).map(([w]) => w);
    },
  };
}
