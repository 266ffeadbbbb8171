import { isZero, normalize } from './vectors';

/**
 * The common component of a set of texts (SIF's last step), on the dense part of their vectors: their
 * mean and the first principal direction of what is left. Averages of word vectors share a large
 * component (style, frequent words: raw cosines of unrelated texts are ~0.65); only after removing it do
 * cosines say what a text is about. It belongs to the set (a product's signals), so it is computed from
 * them and stored with their clustering. Small sets borrow from a prior: their mean is shrunk toward
 * PRIOR_WEIGHT texts of mean zero, so two signals are not centred into opposites of each other.
 */
export interface CommonComponent {
  mean: Float32Array;
  /** Unit vector, or zero. */
  direction: Float32Array;
}

const PRIOR_WEIGHT = 10;
/** Below this many texts the principal direction is noise: only the mean is removed. */
const PCA_MIN = 50;
/** Share of the dense part in the combined vector (the lexical part has the rest): measured with tools/eval. */
export const DENSE_SHARE = 0.7;

export function commonComponent(vectors: Float32Array, dims: number, denseDims: number): CommonComponent {
  const rows: number[] = [];
  // Texts with no known word (zero dense part) take no part.
  for (let i = 0; i < vectors.length / dims; i++) if (!isZero(vectors.subarray(i * dims, i * dims + denseDims))) rows.push(i);
  const n = rows.length;
  const mean = new Float32Array(denseDims);
  for (const i of rows) for (let d = 0; d < denseDims; d++) mean[d]! += vectors[i * dims + d]!;
  for (let d = 0; d < denseDims; d++) mean[d]! /= n + (n < PCA_MIN ? PRIOR_WEIGHT : 0);
  const direction = new Float32Array(denseDims);
  if (n >= PCA_MIN) {
    // First principal direction of the centred set, by power iteration from a fixed start.
    let v = new Float32Array(denseDims).fill(1 / Math.sqrt(denseDims));
    const row = new Float32Array(denseDims);
    for (let iteration = 0; iteration < 30; iteration++) {
      const next = new Float32Array(denseDims);
      for (const i of rows) {
        let p = 0;
        for (let d = 0; d < denseDims; d++) {
          row[d] = vectors[i * dims + d]! - mean[d]!;
          p += row[d]! * v[d]!;
        }
        for (let d = 0; d < denseDims; d++) next[d]! += p * row[d]!;
      }
      v = normalize(next);
    }
    direction.set(v);
  }
  return { mean, direction };
}

/**
 * The vector to compare and cluster: the dense part without the common component, then both parts at
 * unit length, weighted DENSE_SHARE : 1 − DENSE_SHARE in squares, so the whole is a unit vector and a
 * dot product is a blend of the two cosines. A zero part stays zero.
 */
export function withoutCommon(vector: Float32Array, common: CommonComponent): Float32Array {
  const denseDims = common.mean.length;
  const out = new Float32Array(vector.length);
  const dense = out.subarray(0, denseDims);
  if (!isZero(vector.subarray(0, denseDims))) {
    let p = 0;
    for (let d = 0; d < denseDims; d++) {
      dense[d] = vector[d]! - common.mean[d]!;
      p += dense[d]! * common.direction[d]!;
    }
    for (let d = 0; d < denseDims; d++) dense[d]! -= p * common.direction[d]!;
    normalize(dense);
  }
  const a = Math.sqrt(DENSE_SHARE);
  const b = Math.sqrt(1 - DENSE_SHARE);
  for (let d = 0; d < denseDims; d++) dense[d]! *= a;
  for (let d = denseDims; d < vector.length; d++) out[d] = vector[d]! * b;
  return out;
}
