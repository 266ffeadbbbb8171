import { stem, tokenize } from './embed';

/**
 * Latent semantic analysis of one set of texts (Deerwester et al. 1990): the texts' TF-IDF word stems,
 * reduced to their `rank` strongest directions by a truncated SVD. Words that the set's texts use
 * together ("freeze", "lock", "card") end up near each other, which general word vectors know nothing of:
 * it is the workspace's own vocabulary, learned from its own texts at each full re-clustering.
 *
 * The SVD is randomized (Halko, Martinsson and Tropp 2011): the range of the term matrix is found by
 * multiplying it with a few random vectors and power iterations, and the small problem left is solved
 * exactly (Jacobi). The random start is seeded, so the same texts give the same vectors.
 */

/** Rank of the reduction for a set of n texts: grows as √n (CLINC150, see docs/adr/0015). */
export const latentRank = (n: number) => Math.max(2, Math.round(1.5 * Math.sqrt(n)));

/**
 * Extra random directions and power iterations of the range finder (Halko et al. suggest 5–10 and 1–2 for
 * a slowly decaying spectrum): CLINC150 × 30 grouped alike with 2 and 3, and 3 cost a quarter more.
 */
const OVERSAMPLE = 10;
const POWER_ITERATIONS = 2;

/**
 * Terms kept per text, its highest weighted: the SVD's cost grows with the terms of each row, and a
 * signal's few rarest words say what it is about (20,000 synthetic texts of 300 words, on a loaded
 * machine: 94 s with every term, 45 s with 48; CLINC150's texts have fewer, so they are unchanged).
 */
const TERMS_PER_TEXT = 48;

type TermRow = Array<[term: number, weight: number]>;

function stemCounts(text: string): Map<string, number> {
  const c = new Map<string, number>();
  for (const word of tokenize(text)) {
    const s = stem(word);
    c.set(s, (c.get(s) ?? 0) + 1);
  }
  return c;
}

/** A text's row of the term matrix: its known terms by TF-IDF, the TERMS_PER_TEXT highest, at unit length. */
function termRow(counts: Map<string, number>, index: ReadonlyMap<string, number>, idf: Float64Array): TermRow {
  let row: TermRow = [];
  for (const [term, count] of counts) {
    const j = index.get(term);
    if (j !== undefined) row.push([j, (1 + Math.log(count)) * idf[j]!]);
  }
  if (row.length > TERMS_PER_TEXT) row = row.sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, TERMS_PER_TEXT);
  const norm = Math.sqrt(row.reduce((sum, [, w]) => sum + w * w, 0)) || 1;
  for (const entry of row) entry[1] /= norm;
  return row;
}

/** Each text's row of the term matrix, over the terms of at least two texts (with their IDF). */
function termRows(texts: readonly string[]): { rows: TermRow[]; terms: number; index: Map<string, number>; idf: Float64Array } {
  const counts = texts.map(stemCounts);
  const df = new Map<string, number>();
  for (const c of counts) for (const term of c.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  // A term of one text relates it to no other.
  const index = new Map<string, number>();
  for (const [term, n] of df) if (n >= 2) index.set(term, index.size);
  const idf = new Float64Array(index.size);
  for (const [term, j] of index) idf[j] = Math.log(texts.length / df.get(term)!);
  return { rows: counts.map((c) => termRow(c, index, idf)), terms: index.size, index, idf };
}

/**
 * Gram–Schmidt on the `l` columns of a rows × l matrix (row-major), in place; a column that vanishes
 * stays zero. The columns are copied out to run contiguous (four times faster at 15,000 rows).
 */
function orthonormalize(m: Float64Array, rows: number, l: number): void {
  const columns: Float64Array[] = [];
  for (let j = 0; j < l; j++) {
    const c = new Float64Array(rows);
    for (let i = 0; i < rows; i++) c[i] = m[i * l + j]!;
    columns.push(c);
  }
  for (let j = 0; j < l; j++) {
    const c = columns[j]!;
    for (let k = 0; k < j; k++) {
      const other = columns[k]!;
      let d = 0;
      for (let i = 0; i < rows; i++) d += c[i]! * other[i]!;
      for (let i = 0; i < rows; i++) c[i]! -= d * other[i]!;
    }
    let s = 0;
    for (let i = 0; i < rows; i++) s += c[i]! * c[i]!;
    s = Math.sqrt(s);
    const scale = s > 1e-12 ? 1 / s : 0;
    for (let i = 0; i < rows; i++) c[i]! *= scale;
  }
  for (let j = 0; j < l; j++) {
    const c = columns[j]!;
    for (let i = 0; i < rows; i++) m[i * l + j] = c[i]!;
  }
}

/** Eigenvalues and eigenvectors (columns of `vectors`) of a symmetric l × l matrix, by cyclic Jacobi rotations. */
function symmetricEigen(a: Float64Array, l: number): { values: Float64Array; vectors: Float64Array } {
  const v = new Float64Array(l * l);
  for (let i = 0; i < l; i++) v[i * l + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    let diagonal = 0;
    for (let p = 0; p < l; p++) {
      diagonal += a[p * l + p]! ** 2;
      for (let q = p + 1; q < l; q++) off += a[p * l + q]! ** 2;
    }
    if (off <= 1e-22 * diagonal) break;
    for (let p = 0; p < l; p++) {
      for (let q = p + 1; q < l; q++) {
        const apq = a[p * l + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * l + q]! - a[p * l + p]!) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < l; k++) {
          const akp = a[k * l + p]!;
          const akq = a[k * l + q]!;
          a[k * l + p] = c * akp - s * akq;
          a[k * l + q] = s * akp + c * akq;
        }
        for (let k = 0; k < l; k++) {
          const apk = a[p * l + k]!;
          const aqk = a[q * l + k]!;
          a[p * l + k] = c * apk - s * aqk;
          a[q * l + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < l; k++) {
          const vkp = v[k * l + p]!;
          const vkq = v[k * l + q]!;
          v[k * l + p] = c * vkp - s * vkq;
          v[k * l + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return { values: Float64Array.from({ length: l }, (_, i) => a[i * l + i]!), vectors: v };
}

/** The truncated SVD of the texts' term matrix: A ≈ Q·W·Σ·Vᵀ (see latentVectors). */
interface Reduction {
  n: number;
  matrix: ReturnType<typeof termRows>;
  l: number;
  /** Orthonormal range of A, n × l. */
  q: Float64Array;
  /** Aᵀ·Q, terms × l. */
  b: Float64Array;
  /** The kept components, strongest first: eigenvectors W of Bᵀ·B (columns of `vectors`, l × l) and σ. */
  components: Array<{ column: number; sigma: number }>;
  vectors: Float64Array;
}

function reduce(texts: readonly string[], rank: number): Reduction | undefined {
  const n = texts.length;
  const matrix = termRows(texts);
  const { rows } = matrix;
  const l = Math.min(rank + OVERSAMPLE, n, matrix.terms);
  if (l === 0) return undefined;
  // Seeded uniform start (xorshift): the same texts give the same vectors.
  let seed = 0x9e3779b9;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296 - 0.5;
  };
  const times = (m: Float64Array) => {
    // A (n × terms) · m (terms × l)
    const y = new Float64Array(n * l);
    rows.forEach((row, i) => {
      for (const [j, w] of row) for (let k = 0; k < l; k++) y[i * l + k]! += w * m[j * l + k]!;
    });
    return y;
  };
  const timesTransposed = (y: Float64Array) => {
    // Aᵀ (terms × n) · y (n × l)
    const z = new Float64Array(matrix.terms * l);
    rows.forEach((row, i) => {
      for (const [j, w] of row) for (let k = 0; k < l; k++) z[j * l + k]! += w * y[i * l + k]!;
    });
    return z;
  };
  // Subspace iteration: Q is orthonormalized once after each product with A·Aᵀ, which keeps the weaker
  // directions apart (their scale falls by (σₖ/σ₁)² a step) at two fifths of the cost of orthonormalizing
  // after each product with A and with Aᵀ (15,000 signals: 5.1 s against 6.9 s, the same grouping).
  let q = times(Float64Array.from({ length: matrix.terms * l }, random));
  for (let iteration = 0; iteration < POWER_ITERATIONS; iteration++) {
    q = times(timesTransposed(q));
    orthonormalize(q, n, l);
  }
  // A ≈ Q·Qᵀ·A; with B = Aᵀ·Q (terms × l), the left singular vectors of A are Q·W where W are the
  // eigenvectors of Bᵀ·B, and its singular values the square roots of their eigenvalues.
  const b = timesTransposed(q);
  const gram = new Float64Array(l * l);
  for (let j = 0; j < matrix.terms; j++) {
    for (let x = 0; x < l; x++) {
      const bx = b[j * l + x]!;
      if (bx === 0) continue;
      for (let y = 0; y < l; y++) gram[x * l + y]! += bx * b[j * l + y]!;
    }
  }
  const { values, vectors } = symmetricEigen(gram, l);
  const components = Array.from({ length: l }, (_, i) => i).sort((x, y) => values[y]! - values[x]!).slice(0, rank)
    .map((column) => ({ column, sigma: Math.sqrt(Math.max(values[column]!, 0)) }));
  return { n, matrix, l, q, b, components, vectors };
}

/** Rows of `rank` values scaled to unit length in place; a row too small to have a direction becomes zeros. */
function unitRows(out: Float32Array, rank: number): void {
  for (let i = 0; i < out.length / rank; i++) {
    let norm = 0;
    for (let r = 0; r < rank; r++) norm += out[i * rank + r]! ** 2;
    norm = Math.sqrt(norm);
    if (norm > 1e-12) for (let r = 0; r < rank; r++) out[i * rank + r]! /= norm;
    else out.fill(0, i * rank, (i + 1) * rank);
  }
}

/**
 * The texts' latent vectors: n rows of `rank` values at unit length (U·Σ of the truncated SVD), a row
 * of zeros for a text with no word shared with another.
 */
export function latentVectors(texts: readonly string[], rank: number): Float32Array {
  const out = new Float32Array(texts.length * rank);
  const reduction = reduce(texts, rank);
  if (!reduction) return out;
  const { n, l, q, components, vectors } = reduction;
  // The kept eigenvectors scaled by their singular values, one contiguous row each: U·Σ = Q·(W·Σ).
  const scaled = new Float64Array(components.length * l);
  components.forEach(({ column, sigma }, r) => {
    for (let x = 0; x < l; x++) scaled[r * l + x] = vectors[x * l + column]! * sigma;
  });
  for (let i = 0; i < n; i++) {
    for (let r = 0; r < components.length; r++) {
      let u = 0;
      for (let x = 0; x < l; x++) u += q[i * l + x]! * scaled[r * l + x]!;
      out[i * rank + r] = u;
    }
  }
  unitRows(out, rank);
  return out;
}

/**
 * A set of texts' own vocabulary, to place other texts in the same latent space (folding in, Deerwester
 * et al. 1990): each term the set's texts share, its IDF and its latent direction (a row of V), so a
 * text's latent vector is its TF-IDF row times V, the U·Σ the text would have had among them.
 */
export interface LatentTerms {
  rank: number;
  index: Map<string, number>;
  idf: Float64Array;
  /** terms × rank: V. */
  directions: Float32Array;
}

/** The vocabulary of `texts` reduced to `rank` latent directions. */
export function latentTerms(texts: readonly string[], rank: number): LatentTerms {
  const reduction = reduce(texts, rank);
  if (!reduction) return { rank, index: new Map(), idf: new Float64Array(0), directions: new Float32Array(0) };
  const { matrix, l, b, components, vectors } = reduction;
  // V = Aᵀ·U·Σ⁻¹ = B·W·Σ⁻¹.
  const directions = new Float32Array(matrix.terms * rank);
  for (let j = 0; j < matrix.terms; j++) {
    components.forEach(({ column, sigma }, r) => {
      if (sigma < 1e-12) return;
      let v = 0;
      for (let x = 0; x < l; x++) v += b[j * l + x]! * vectors[x * l + column]!;
      directions[j * rank + r] = v / sigma;
    });
  }
  return { rank, index: matrix.index, idf: matrix.idf, directions };
}

/** `text` placed among the texts `terms` was learned from: `rank` values at unit length, zeros when it shares no term with them. */
export function foldIn(terms: LatentTerms, text: string): Float32Array {
  const { rank } = terms;
  const out = new Float32Array(rank);
  for (const [j, w] of termRow(stemCounts(text), terms.index, terms.idf)) {
    for (let r = 0; r < rank; r++) out[r]! += w * terms.directions[j * rank + r]!;
  }
  unitRows(out, rank);
  return out;
}

/**
 * Each text's likeness to the query in the vocabulary, the query first moved toward the first `feedback`
 * texts (pseudo-relevance feedback, as the index of meaning's `feedbackScores`: q + β·their mean). Both are
 * folded in; a text that shares no term with the vocabulary scores 0.
 */
export function latentScores(terms: LatentTerms, query: string, texts: readonly string[], feedback: number, beta: number): number[] {
  return latentScoresOfFolded(terms, query, texts.map((text) => foldIn(terms, text)), feedback, beta);
}

/** latentScores of texts already folded in (foldIn), so a second pass over them in another order folds nothing again. */
export function latentScoresOfFolded(terms: LatentTerms, query: string, folded: readonly Float32Array[], feedback: number, beta: number): number[] {
  const moved = foldIn(terms, query);
  const given = folded.slice(0, feedback);
  for (const f of given) for (let r = 0; r < moved.length; r++) moved[r]! += (beta * f[r]!) / given.length;
  return folded.map((f) => {
    let s = 0;
    for (let r = 0; r < moved.length; r++) s += moved[r]! * f[r]!;
    return s;
  });
}
