import { commonComponent, type CommonComponent } from './common';
import { PartitionTree, type RowFilter } from './partition-tree';
import { normalize, resized } from './vectors';

/**
 * An in-memory nearest-neighbour index of one collection (a workspace's sources), scored by the cosine
 * of vectors centred on the collection's own common component (the same correction the clustering
 * makes; it doubles the precision of raw averaged word vectors). Vectors are stored raw and quantised
 * (a scale and one signed byte per dimension), so the common component can be re-estimated as the
 * collection grows without touching them: only each vector's centred length is recomputed.
 *
 * score(d) = c_q · P(d − m) / |P(d − m)| = (c_q · d − c_q · m) / |P(d − m)|, where m is the mean, P
 * projects out the principal directions and c_q is the centred query (already inside P's range).
 *
 * Items carry facets for filtering (a product, a type, a nature, a time, projects). Up to PREFILTER_MIN
 * items the scan is exact (every item that passes the filters, ~0.15 µs each); larger collections take
 * their candidates from the leaves of a k-means tree nearest the query (PartitionTree: the cost follows
 * the candidates and the tree's depth, not the collection's size), then score those exactly
 * (npm run bench:vector-index prints the recall against the exact scan).
 */
export interface IndexItem {
  id: string;
  /** Quantised vector: float32 scale (little endian) then `dims` signed bytes (see `quantize`). */
  vector: Uint8Array;
  product: string;
  type: string;
  nature: string;
  /** Milliseconds since the epoch. */
  at: number;
  projects: string[];
}

export interface IndexFilter {
  product?: string | undefined;
  type?: string | undefined;
  nature?: string | undefined;
  project?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
}

export interface IndexHit {
  id: string;
  score: number;
}

/** A float vector as a scale and signed bytes: `4 + dims` bytes. */
export function quantize(v: Float32Array): Uint8Array {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const out = new Uint8Array(4 + v.length);
  const scale = max / 127;
  new DataView(out.buffer).setFloat32(0, scale, true);
  const q = new Int8Array(out.buffer, 4);
  for (let i = 0; i < v.length; i++) q[i] = scale > 0 ? Math.round(v[i]! / scale) : 0;
  return out;
}

/** The collection's common component is estimated again when it has grown by this factor since the last time. */
const REESTIMATE_GROWTH = 2;
/** ...from at most this many items, evenly spaced. */
const COMMON_SAMPLE = 20_000;

/** Collections this large take their candidates from the partition tree; smaller ones are scanned exactly. */
export const PREFILTER_MIN = 50_000;
/**
 * Candidates (passing the filters) scored exactly: at least this many, and this many per hit asked for.
 * Measured with npm run bench:vector-index at a million sources (recall@30, a theme new to the index,
 * query p50): 4,000 0.94, 0.67, 2.2 ms; 8,000 0.94, 0.82, 3.5 ms; 16,000 0.98, 0.87, 8.5 ms.
 */
const TREE_CANDIDATES = 16_000;
const TREE_CANDIDATES_PER_HIT = 20;
/**
 * A filtered search visits the tree's rows until FILTERED_VISITS × its share pass (at least 20 per hit
 * asked for, at most TREE_CANDIDATES): visiting 32,000 rows keeps recall@30 ≥ 0.99 for a filter that
 * 25 % or 4 % pass (npm run bench:vector-index). When it would visit more than TREE_MAX_SHARE of the
 * collection, it scans the collection in row order instead. FILTER_SAMPLE rows guess the share of a
 * filter on dates.
 */
const FILTERED_VISITS = 32_000;
const TREE_MAX_SHARE = 0.5;
const FILTER_SAMPLE = 1_024;

interface FacetSet {
  product: string;
  type: string;
  nature: string;
  projects: readonly string[];
}

/**
 * The distinct combinations of an item's facets (product, type, nature, projects) and how many live
 * items have each. A workspace has a handful, so a filter becomes a table of the sets that pass (one
 * byte each), checked per item with one lookup, and its share of the collection is known exactly.
 */
class FacetSets {
  private codes = new Map<string, number>();
  private sets: FacetSet[] = [];
  private counts = new Int32Array(16);

  code(item: FacetSet): number {
    const key = [item.product, item.type, item.nature, ...item.projects].join('\u0000');
    let c = this.codes.get(key);
    if (c === undefined) {
      c = this.sets.length;
      this.codes.set(key, c);
      this.sets.push({ product: item.product, type: item.type, nature: item.nature, projects: [...item.projects] });
      if (c === this.counts.length) this.counts = resized(this.counts, c * 2);
    }
    return c;
  }

  count(code: number, change: 1 | -1) {
    this.counts[code]! += change;
  }

  /** The sets that pass the filter's facets (undefined: it has none) and the live items they hold. */
  passing(filter: IndexFilter): { tags: Uint8Array | undefined; items: number } {
    const { product, type, nature, project } = filter;
    if (product === undefined && type === undefined && nature === undefined && project === undefined) return { tags: undefined, items: -1 };
    const tags = new Uint8Array(this.sets.length);
    let items = 0;
    this.sets.forEach((set, c) => {
      if ((product === undefined || set.product === product) && (type === undefined || set.type === type)
        && (nature === undefined || set.nature === nature) && (project === undefined || set.projects.includes(project))) {
        tags[c] = 1;
        items += this.counts[c]!;
      }
    });
    return { tags, items };
  }
}

export class VectorIndex {
  private n = 0;
  private live = 0;
  private vectors: Int8Array;
  private scales: Float32Array;
  /** |P(d − m)| of each item's raw vector (0: the item takes no part). */
  private lengths: Float32Array;
  /** Each item's set of facets (see FacetSets). */
  private facets: Int32Array;
  private times: Float64Array;
  /** The candidates of large collections' searches (every item with a vector is in it). */
  private tree: PartitionTree;
  private ids: Array<string | undefined> = [];
  private rowOf = new Map<string, number>();
  private facetSets = new FacetSets();
  private common: CommonComponent | undefined;
  private estimatedAt = 0;
  private readonly scratch: Float32Array;

  constructor(readonly dims: number, capacity = 1_024) {
    this.vectors = new Int8Array(capacity * dims);
    this.scales = new Float32Array(capacity);
    this.lengths = new Float32Array(capacity);
    this.facets = new Int32Array(capacity);
    this.times = new Float64Array(capacity);
    this.scratch = new Float32Array(dims);
    this.tree = new PartitionTree(dims, {
      vector: (row, out) => this.centredUnit(row, out),
      tag: (row) => this.facets[row]!,
      time: (row) => this.times[row]!,
    });
  }

  get size(): number {
    return this.live;
  }

  /** Adds items, or replaces the ones whose id is already indexed. */
  upsert(items: readonly IndexItem[]): void {
    for (const item of items) {
      if (item.vector.byteLength !== 4 + this.dims) continue;
      let row = this.rowOf.get(item.id);
      if (row === undefined) {
        row = this.n++;
        this.grow(this.n);
        this.rowOf.set(item.id, row);
        this.live++;
      } else {
        this.tree.remove(row);
        this.facetSets.count(this.facets[row]!, -1);
      }
      this.scales[row] = new DataView(item.vector.buffer, item.vector.byteOffset, 4).getFloat32(0, true);
      this.vectors.set(new Int8Array(item.vector.buffer, item.vector.byteOffset + 4, this.dims), row * this.dims);
      this.facets[row] = this.facetSets.code(item);
      this.facetSets.count(this.facets[row]!, 1);
      this.times[row] = item.at;
      this.ids[row] = item.id;
      if (this.common) {
        this.lengths[row] = this.centredLength(row);
        this.tree.insert(row);
      }
    }
    if (!this.common || this.live >= this.estimatedAt * REESTIMATE_GROWTH) this.estimate();
  }

  remove(ids: readonly string[]): void {
    for (const id of ids) {
      const row = this.rowOf.get(id);
      if (row === undefined) continue;
      this.tree.remove(row);
      this.facetSets.count(this.facets[row]!, -1);
      this.rowOf.delete(id);
      this.ids[row] = undefined;
      this.lengths[row] = 0;
      this.live--;
    }
  }

  /** The items most like `query` (a raw unit vector of `dims`), best first, at or above `minScore` (`exact`: without the prefilter). */
  search(query: Float32Array, k: number, filter: IndexFilter = {}, minScore = -1, exact = false): IndexHit[] {
    const common = this.common;
    if (!common || this.live === 0) return [];
    const dims = this.dims;
    const q = this.centred(query, common);
    if (!q) return [];
    let qm = 0;
    for (let d = 0; d < dims; d++) qm += q[d]! * common.mean[d]!;
    const facets = this.facetSets.passing(filter);
    if (facets.items === 0) return [];
    const rowFilter: RowFilter = { tags: facets.tags, since: filter.since ?? -Infinity, until: filter.until ?? Infinity };
    const unfiltered = !rowFilter.tags && rowFilter.since === -Infinity && rowFilter.until === Infinity;
    const hitsWant = k * TREE_CANDIDATES_PER_HIT;
    let candidates: Int32Array | undefined;
    if (!exact && this.live >= PREFILTER_MIN) {
      if (unfiltered) candidates = this.tree.candidates(q, Math.max(hitsWant, TREE_CANDIDATES));
      else {
        const share = this.share(rowFilter, facets.items);
        const want = Math.max(hitsWant, Math.min(TREE_CANDIDATES, FILTERED_VISITS * share));
        if (want < this.live * share * TREE_MAX_SHARE) candidates = this.tree.candidates(q, want, rowFilter);
      }
    }
    // The k best so far, worst first (k is small: insertion keeps them sorted).
    const bestScores: number[] = [];
    const bestRows: number[] = [];
    let floor = minScore;
    const vectors = this.vectors;
    const end = candidates ? candidates.length : this.n;
    for (let i = 0; i < end; i++) {
      const row = candidates ? candidates[i]! : i;
      const length = this.lengths[row]!;
      if (!candidates && !this.passes(row, rowFilter)) continue;
      const base = row * dims;
      let s0 = 0;
      let s1 = 0;
      let d = 0;
      for (; d + 1 < dims; d += 2) {
        s0 += q[d]! * vectors[base + d]!;
        s1 += q[d + 1]! * vectors[base + d + 1]!;
      }
      if (d < dims) s0 += q[d]! * vectors[base + d]!;
      const score = ((s0 + s1) * this.scales[row]! - qm) / length;
      if (score < floor) continue;
      let at2 = bestScores.length;
      while (at2 > 0 && bestScores[at2 - 1]! > score) at2--;
      bestScores.splice(at2, 0, score);
      bestRows.splice(at2, 0, row);
      if (bestScores.length > k) {
        bestScores.shift();
        bestRows.shift();
      }
      if (bestScores.length === k) floor = Math.max(floor, bestScores[0]!);
    }
    const hits: IndexHit[] = [];
    for (let i = bestRows.length - 1; i >= 0; i--) hits.push({ id: this.ids[bestRows[i]!]!, score: bestScores[i]! });
    return hits;
  }

  /**
   * Scores of the given items against the query moved toward its first `feedback` items (pseudo-relevance
   * feedback, Rocchio 1971): q' = q + beta × the mean of their centred unit vectors, then each item's
   * cosine with q'. The first results of a search are mostly right; their mean says what the query is
   * about better than its few words. Items not indexed (or without a vector) score NaN.
   */
  feedbackScores(query: Float32Array, ids: readonly string[], feedback: number, beta: number): number[] {
    const common = this.common;
    const q = common && this.live > 0 ? this.centred(query, common) : undefined;
    if (!q) return ids.map(() => NaN);
    const dims = this.dims;
    const units = ids.map((id) => {
      const row = this.rowOf.get(id);
      const out = new Float32Array(dims);
      return row !== undefined && this.centredUnit(row, out) ? out : undefined;
    });
    const moved = Float32Array.from(q);
    const given = units.slice(0, feedback).filter((u) => u !== undefined);
    for (const u of given) for (let d = 0; d < dims; d++) moved[d]! += (beta * u[d]!) / given.length;
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += moved[d]! ** 2;
    norm = Math.sqrt(norm) || 1;
    return units.map((u) => {
      if (!u) return NaN;
      let s = 0;
      for (let d = 0; d < dims; d++) s += moved[d]! * u[d]!;
      return s / norm;
    });
  }

  /**
   * The share of the collection that passes the filter: exact for the facets (`facetItems` pass them;
   * -1: no facet filtered), guessed for dates from FILTER_SAMPLE evenly spaced rows.
   */
  /** Whether the item in `row` takes part and passes the filter (the tree checks its own copy of the same in each leaf). */
  private passes(row: number, filter: RowFilter): boolean {
    if (this.lengths[row] === 0 || (filter.tags && !filter.tags[this.facets[row]!])) return false;
    const at = this.times[row]!;
    return at >= filter.since && at < filter.until;
  }

  private share(filter: RowFilter, facetItems: number): number {
    if (filter.since === -Infinity && filter.until === Infinity) return facetItems / this.live;
    let passing = 0;
    for (let i = 0; i < FILTER_SAMPLE; i++) {
      const row = Math.floor((i * this.n) / FILTER_SAMPLE);
      if (this.passes(row, filter)) passing++;
    }
    return passing / FILTER_SAMPLE;
  }

  /** Bytes held (for /metrics and the memory budget). */
  get bytes(): number {
    return this.vectors.byteLength + this.scales.byteLength * 5 + this.tree.bytes;
  }

  private grow(needed: number) {
    const capacity = this.scales.length;
    if (needed <= capacity) return;
    const next = Math.max(needed, capacity * 2);
    this.vectors = resized(this.vectors, next * this.dims);
    this.scales = resized(this.scales, next);
    this.lengths = resized(this.lengths, next);
    this.facets = resized(this.facets, next);
    this.times = resized(this.times, next);
  }

  private raw(row: number): Float32Array {
    const v = new Float32Array(this.dims);
    const scale = this.scales[row]!;
    for (let d = 0; d < this.dims; d++) v[d] = this.vectors[row * this.dims + d]! * scale;
    return v;
  }

  /** The centred, unit-length version of a raw vector, or undefined for a zero one. */
  private centred(v: Float32Array, common: CommonComponent): Float32Array | undefined {
    const dims = this.dims;
    const out = new Float32Array(dims);
    let any = false;
    for (let d = 0; d < dims; d++) {
      out[d] = v[d]! - common.mean[d]!;
      if (v[d] !== 0) any = true;
    }
    if (!any) return undefined;
    this.project(out, common);
    return normalize(out);
  }

  private project(v: Float32Array, common: CommonComponent) {
    const dims = this.dims;
    for (let at = 0; at + dims <= common.direction.length; at += dims) {
      let p = 0;
      for (let d = 0; d < dims; d++) p += v[d]! * common.direction[at + d]!;
      for (let d = 0; d < dims; d++) v[d]! -= p * common.direction[at + d]!;
    }
  }

  /** P(d − m) of the item's raw vector, written into `out`; returns its length (0 for a zero vector). */
  private centredInto(row: number, out: Float32Array): number {
    const common = this.common!;
    if (this.scales[row] === 0) return 0;
    const scale = this.scales[row]!;
    const base = row * this.dims;
    for (let d = 0; d < this.dims; d++) out[d] = this.vectors[base + d]! * scale - common.mean[d]!;
    this.project(out, common);
    let n = 0;
    for (let d = 0; d < this.dims; d++) n += out[d]! * out[d]!;
    return Math.sqrt(n);
  }

  private centredLength(row: number): number {
    return this.centredInto(row, this.scratch);
  }

  /** The item's centred unit vector (what the partition tree groups), or false when it has none. */
  private centredUnit(row: number, out: Float32Array): boolean {
    if (!this.common || this.ids[row] === undefined) return false;
    const length = this.centredInto(row, out);
    if (length === 0) return false;
    for (let d = 0; d < this.dims; d++) out[d]! /= length;
    return true;
  }

  /** Estimates the common component from an even sample of the live items, then every centred length. */
  private estimate() {
    const rows: number[] = [];
    for (let row = 0; row < this.n; row++) if (this.ids[row] !== undefined) rows.push(row);
    if (rows.length === 0) return;
    const take = Math.min(rows.length, COMMON_SAMPLE);
    const sample = new Float32Array(take * this.dims);
    for (let s = 0; s < take; s++) sample.set(this.raw(rows[Math.floor((s * rows.length) / take)]!), s * this.dims);
    this.common = commonComponent(sample, this.dims, this.dims);
    this.estimatedAt = rows.length;
    for (const row of rows) this.lengths[row] = this.centredLength(row);
    // The first estimate builds the tree; later ones move its centroids into the new space.
    if (this.tree.size === 0) for (const row of rows) this.tree.insert(row);
    else this.tree.recentre();
  }
}
