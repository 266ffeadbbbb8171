import { dotAt, resized } from './vectors';

/**
 * Hierarchical k-means partitions of an index's rows (by their centred unit vectors), grown with the
 * index: a row goes down to the child whose centroid is nearest at each level, and a leaf holding more
 * than LEAF_MAX rows is split by k-means into up to BRANCHES leaves under it. A search visits the
 * leaves nearest the query first (best bin first) until it holds the candidates it wants, so its cost
 * follows the candidates wanted and the depth of the tree (the log of the row count), not the row count.
 *
 * Every node's centroid is the mean of the rows under it, kept exact as rows come and go (`insert`,
 * `remove` with the vector the row was inserted with) and recomputed when the vectors' space changes
 * (`recentre`, after the index estimates its common component again). The partition itself stays: a
 * row is moved only when it is written again.
 */

/** What the tree reads of the index's rows. */
export interface TreeRows {
  /** Writes a row's centred unit vector into `out`; false when the row has none (removed, or a zero vector). */
  vector(row: number, out: Float32Array): boolean;
  /** The row's facet set and time, copied beside it in its leaf so that a filtered search reads them in order, not scattered over the index. */
  tag(row: number): number;
  time(row: number): number;
}

/** Rows whose tag is marked in `tags` (every tag when absent) and whose time is in [since, until). */
export interface RowFilter {
  tags?: Uint8Array | undefined;
  since: number;
  until: number;
}

/**
 * Children of a split leaf, at most, and the rows a leaf holds before it is split. Small leaves partition
 * finely (measured with npm run bench:vector-index, 4,000 candidates, recall@30 at a million: 16 × 1,024
 * 0.82, 16 × 256 0.91, 64 × 1,024 0.956); more branches cost each row's way down.
 */
export const BRANCHES = 64;
export const LEAF_MAX = 1_024;
/** Lloyd's iterations of a split (8 gave the same recall for a third more filling time). */
const KMEANS_ITERATIONS = 4;

export class PartitionTree {
  /** Sum of the vectors under each node, dims each (float64: rows are added and taken away for as long as the index lives). */
  private sums: Float64Array;
  /** Rows under each node. */
  private counts: Int32Array;
  /** Each node's centroid and its squared length, as of the last time they were needed (`dirty`: the sums changed since). */
  private centroids: Float32Array;
  private squares: Float64Array;
  private dirty: Uint8Array;
  private parents: Int32Array;
  /** A leaf is split when it holds more rows than this (raised when its rows cannot be told apart). */
  private limits: Int32Array;
  private children: Array<Int32Array | undefined> = [];
  /** Each leaf's rows, with their tags and times beside them; an entry whose row has moved or gone since is -1 until the next compaction drops it. */
  private members: Int32Array[] = [];
  private tags: Int32Array[] = [];
  private times: Float64Array[] = [];
  private filled: Int32Array;
  /** Row → its leaf (or -1), and its place in the leaf's lists. */
  private leafOf = new Int32Array(0).fill(-1);
  private slotOf = new Int32Array(0);
  private nodes = 0;
  private readonly vector: Float32Array;
  /** The candidates' buffer, kept between searches (a fresh one per search is external memory the collector must chase). */
  private found = new Int32Array(0);

  constructor(private readonly dims: number, private readonly rows: TreeRows) {
    this.sums = new Float64Array(16 * dims);
    this.counts = new Int32Array(16);
    this.centroids = new Float32Array(16 * dims);
    this.squares = new Float64Array(16);
    this.dirty = new Uint8Array(16);
    this.parents = new Int32Array(16);
    this.limits = new Int32Array(16);
    this.filled = new Int32Array(16);
    this.vector = new Float32Array(dims);
    this.addNode(-1);
  }

  /** Rows in the tree. */
  get size(): number {
    return this.counts[0]!;
  }

  get bytes(): number {
    let members = 0;
    for (let node = 0; node < this.nodes; node++) members += this.members[node]!.byteLength + this.tags[node]!.byteLength + this.times[node]!.byteLength;
    return this.sums.byteLength * 1.5 + this.counts.byteLength * 7 + this.leafOf.byteLength * 2 + this.found.byteLength + members;
  }

  /** Puts a row in the leaf its vector leads to (a row already in the tree must be removed first). */
  insert(row: number): void {
    const v = this.vector;
    if (!this.rows.vector(row, v)) return;
    let node = 0;
    while (this.children[node]) node = this.nearestChild(node, v);
    this.add(node, v, 1);
    this.append(node, row, this.rows.tag(row), this.rows.time(row));
    if (this.counts[node]! > this.limits[node]!) this.split(node);
  }

  /** Takes a row out: call it while the row still has the vector it was inserted (or last recentred) with. */
  remove(row: number): void {
    const leaf = this.leafOf[row] ?? -1;
    if (leaf < 0) return;
    this.forget(row);
    if (this.rows.vector(row, this.vector)) this.add(leaf, this.vector, -1);
    else for (let node = leaf; node >= 0; node = this.parents[node]!) this.counts[node]!--;
  }

  /** Recomputes every centroid from the rows' current vectors (after the space they live in changed). */
  recentre(): void {
    this.sums.fill(0);
    this.counts.fill(0);
    this.dirty.fill(1);
    const v = this.vector;
    for (let row = 0; row < this.leafOf.length; row++) {
      const leaf = this.leafOf[row]!;
      if (leaf < 0) continue;
      if (this.rows.vector(row, v)) this.add(leaf, v, 1);
      else this.forget(row);
    }
  }

  /** Marks the row's entry in its leaf as gone. */
  private forget(row: number) {
    this.members[this.leafOf[row]!]![this.slotOf[row]!] = -1;
    this.leafOf[row] = -1;
  }

  /**
   * Rows of the leaves nearest `q` (a centred unit vector), nearest leaf first, until `want` of them
   * pass `filter` (every row when it is absent) or every leaf has been visited. The answer is a view
   * of a buffer the next call writes over.
   */
  candidates(q: Float32Array, want: number, filter?: RowFilter): Int32Array {
    let out = this.found;
    let found = 0;
    const heap = new NodeHeap();
    heap.push(0, 0);
    while (found < want && heap.size > 0) {
      const node = heap.pop();
      const children = this.children[node];
      if (children) {
        for (const child of children) if (this.counts[child]! > 0) heap.push(child, this.distance(child, q));
        continue;
      }
      const rows = this.members[node]!;
      const end = this.filled[node]!;
      if (found + end > out.length) {
        const bigger = new Int32Array(Math.max(out.length * 2, found + end, LEAF_MAX));
        bigger.set(out.subarray(0, found));
        this.found = out = bigger;
      }
      if (!filter) {
        for (let i = 0; i < end; i++) if (rows[i]! >= 0) out[found++] = rows[i]!;
        continue;
      }
      const { tags, since, until } = filter;
      const rowTags = this.tags[node]!;
      const rowTimes = this.times[node]!;
      for (let i = 0; i < end; i++) {
        if (rows[i]! < 0 || (tags && !tags[rowTags[i]!])) continue;
        const at = rowTimes[i]!;
        if (at >= since && at < until) out[found++] = rows[i]!;
      }
    }
    return out.subarray(0, found);
  }

  /** |c|² − 2 v·c for the node's centroid c: the squared distance to v, less |v|² (the same for every node). */
  private distance(node: number, v: Float32Array): number {
    const dims = this.dims;
    const base = node * dims;
    const centroids = this.centroids;
    if (this.dirty[node]) {
      const n = this.counts[node]!;
      let square = 0;
      for (let d = 0; d < dims; d++) {
        const c = this.sums[base + d]! / n;
        centroids[base + d] = c;
        square += c * c;
      }
      this.squares[node] = square;
      this.dirty[node] = 0;
    }
    return this.squares[node]! - 2 * dotAt(v, 0, centroids, base, dims);
  }

  private nearestChild(node: number, v: Float32Array): number {
    let best = -1;
    let bestDistance = Infinity;
    for (const child of this.children[node]!) {
      // An emptied child still takes rows (its centroid is gone): only when nothing else is there.
      const d = this.counts[child]! > 0 ? this.distance(child, v) : Number.MAX_VALUE;
      if (best < 0 || d < bestDistance) {
        best = child;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Adds `sign` × v to the sums of the node and its ancestors, and `sign` to their counts. */
  private add(leaf: number, v: Float32Array, sign: 1 | -1) {
    const dims = this.dims;
    for (let node = leaf; node >= 0; node = this.parents[node]!) {
      const base = node * dims;
      for (let d = 0; d < dims; d++) this.sums[base + d]! += sign * v[d]!;
      this.counts[node]! += sign;
      this.dirty[node] = 1;
    }
  }

  private append(leaf: number, row: number, tag: number, time: number) {
    if (row >= this.leafOf.length) {
      const size = Math.max(row + 1, this.leafOf.length * 2);
      const grown = new Int32Array(size).fill(-1);
      grown.set(this.leafOf);
      this.leafOf = grown;
      this.slotOf = resized(this.slotOf, size);
    }
    if (this.filled[leaf]! === this.members[leaf]!.length) {
      // Full: drop the entries of rows gone elsewhere before growing.
      this.compact(leaf);
      const size = this.members[leaf]!.length;
      if (this.filled[leaf]! === size) {
        this.members[leaf] = resized(this.members[leaf]!, size * 2);
        this.tags[leaf] = resized(this.tags[leaf]!, size * 2);
        this.times[leaf] = resized(this.times[leaf]!, size * 2);
      }
    }
    const at = this.filled[leaf]!++;
    this.members[leaf]![at] = row;
    this.tags[leaf]![at] = tag;
    this.times[leaf]![at] = time;
    this.leafOf[row] = leaf;
    this.slotOf[row] = at;
  }

  private compact(leaf: number) {
    const rows = this.members[leaf]!;
    const tags = this.tags[leaf]!;
    const times = this.times[leaf]!;
    let kept = 0;
    for (let i = 0; i < this.filled[leaf]!; i++) {
      const row = rows[i]!;
      if (row < 0) continue;
      rows[kept] = row;
      tags[kept] = tags[i]!;
      times[kept] = times[i]!;
      this.slotOf[row] = kept++;
    }
    this.filled[leaf] = kept;
  }

  private addNode(parent: number): number {
    const node = this.nodes++;
    if (node === this.counts.length) {
      const size = this.counts.length * 2;
      this.sums = resized(this.sums, size * this.dims);
      this.centroids = resized(this.centroids, size * this.dims);
      this.squares = resized(this.squares, size);
      this.dirty = resized(this.dirty, size);
      this.counts = resized(this.counts, size);
      this.parents = resized(this.parents, size);
      this.limits = resized(this.limits, size);
      this.filled = resized(this.filled, size);
    }
    this.parents[node] = parent;
    this.dirty[node] = 1;
    this.limits[node] = LEAF_MAX;
    this.members[node] = new Int32Array(64);
    this.tags[node] = new Int32Array(64);
    this.times[node] = new Float64Array(64);
    return node;
  }

  /** Splits a full leaf by k-means into up to BRANCHES leaves under it. */
  private split(leaf: number) {
    this.compact(leaf);
    const m = this.filled[leaf]!;
    const rows = this.members[leaf]!;
    const dims = this.dims;
    const data = new Float32Array(m * dims);
    const usable: number[] = [];
    for (let i = 0; i < m; i++) {
      const row = rows[i]!;
      if (!this.rows.vector(row, this.vector)) {
        this.forget(row);
        for (let node = leaf; node >= 0; node = this.parents[node]!) this.counts[node]!--;
        continue;
      }
      data.set(this.vector, usable.length * dims);
      usable.push(i);
    }
    const groups = kmeans(data.subarray(0, usable.length * dims), dims, BRANCHES, leaf);
    const sizes = new Int32Array(BRANCHES);
    for (let j = 0; j < usable.length; j++) sizes[groups[j]!]!++;
    const used = [...sizes.keys()].filter((g) => sizes[g]! > 0);
    if (used.length < 2) {
      // The rows cannot be told apart (the same text again and again): wait until the leaf has doubled.
      this.limits[leaf] = m * 2;
      return;
    }
    const childOf = new Int32Array(BRANCHES).fill(-1);
    const children = used.map((g) => (childOf[g] = this.addNode(leaf)));
    const tags = this.tags[leaf]!;
    const times = this.times[leaf]!;
    for (let j = 0; j < usable.length; j++) {
      const child = childOf[groups[j]!]!;
      const base = child * dims;
      for (let d = 0; d < dims; d++) this.sums[base + d]! += data[j * dims + d]!;
      this.counts[child]!++;
      this.dirty[child] = 1;
      const i = usable[j]!;
      this.append(child, rows[i]!, tags[i]!, times[i]!);
    }
    this.children[leaf] = Int32Array.from(children);
    this.members[leaf] = new Int32Array(0);
    this.tags[leaf] = new Int32Array(0);
    this.times[leaf] = new Float64Array(0);
    this.filled[leaf] = 0;
  }
}

/** Assigns each of the vectors in `data` (dims each) to one of k clusters: k-means++ seeding (seeded by `seed`), then Lloyd's iterations. */
export function kmeans(data: Float32Array, dims: number, k: number, seed: number): Int32Array {
  const m = data.length / dims;
  const assignment = new Int32Array(m);
  if (m === 0) return assignment;
  let state = (seed * 2654435761 + 1) >>> 0 || 1;
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const squared = (i: number, centres: Float32Array, c: number) => {
    let s = 0;
    for (let d = 0; d < dims; d++) {
      const x = data[i * dims + d]! - centres[c * dims + d]!;
      s += x * x;
    }
    return s;
  };
  const centres = new Float32Array(k * dims);
  let chosen = 0;
  centres.set(data.subarray(0, dims), 0);
  chosen = 1;
  const nearest = new Float64Array(m).fill(Infinity);
  while (chosen < k) {
    let total = 0;
    for (let i = 0; i < m; i++) {
      nearest[i] = Math.min(nearest[i]!, squared(i, centres, chosen - 1));
      total += nearest[i]!;
    }
    if (total === 0) break;
    let target = random() * total;
    let pick = m - 1;
    for (let i = 0; i < m; i++) if ((target -= nearest[i]!) <= 0) {
      pick = i;
      break;
    }
    centres.set(data.subarray(pick * dims, pick * dims + dims), chosen * dims);
    chosen++;
  }
  const sums = new Float64Array(chosen * dims);
  const sizes = new Int32Array(chosen);
  const squares = new Float64Array(chosen);
  for (let iteration = 0; iteration < KMEANS_ITERATIONS; iteration++) {
    let changed = iteration === 0;
    for (let c = 0; c < chosen; c++) {
      let s = 0;
      for (let d = 0; d < dims; d++) s += centres[c * dims + d]! * centres[c * dims + d]!;
      squares[c] = s;
    }
    for (let i = 0; i < m; i++) {
      let best = 0;
      let bestDistance = Infinity;
      const base = i * dims;
      for (let c = 0; c < chosen; c++) {
        // |x − c|² less |x|², the same for every centre.
        const s = squares[c]! - 2 * dotAt(data, base, centres, c * dims, dims);
        if (s < bestDistance) {
          best = c;
          bestDistance = s;
        }
      }
      if (assignment[i] !== best) changed = true;
      assignment[i] = best;
    }
    if (!changed) break;
    sums.fill(0);
    sizes.fill(0);
    for (let i = 0; i < m; i++) {
      const c = assignment[i]!;
      sizes[c]!++;
      for (let d = 0; d < dims; d++) sums[c * dims + d]! += data[i * dims + d]!;
    }
    for (let c = 0; c < chosen; c++) if (sizes[c]! > 0) for (let d = 0; d < dims; d++) centres[c * dims + d] = sums[c * dims + d]! / sizes[c]!;
  }
  return assignment;
}

/** A binary min-heap of nodes by distance. */
class NodeHeap {
  private keys: number[] = [];
  private nodes: number[] = [];

  get size(): number {
    return this.nodes.length;
  }

  push(node: number, key: number) {
    const keys = this.keys;
    const nodes = this.nodes;
    let at = nodes.length;
    keys.push(key);
    nodes.push(node);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (keys[parent]! <= key) break;
      keys[at] = keys[parent]!;
      nodes[at] = nodes[parent]!;
      at = parent;
    }
    keys[at] = key;
    nodes[at] = node;
  }

  pop(): number {
    const keys = this.keys;
    const nodes = this.nodes;
    const top = nodes[0]!;
    const lastKey = keys.pop()!;
    const lastNode = nodes.pop()!;
    const size = nodes.length;
    if (size === 0) return top;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && keys[child + 1]! < keys[child]!) child++;
      if (keys[child]! >= lastKey) break;
      keys[at] = keys[child]!;
      nodes[at] = nodes[child]!;
      at = child;
    }
    keys[at] = lastKey;
    nodes[at] = lastNode;
    return top;
  }
}
