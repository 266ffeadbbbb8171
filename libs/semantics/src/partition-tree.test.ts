import { describe, expect, it } from 'vitest';
import { LEAF_MAX, PartitionTree } from './partition-tree';
import { normalize } from './vectors';

const DIMS = 24;

/** Rows whose vectors the test sets and changes, as the index does (a row without a vector is gone); a row's tag is its parity, its time the row itself. */
function rowsOf() {
  const vectors = new Map<number, Float32Array>();
  const tree = new PartitionTree(DIMS, {
    vector: (row, out) => {
      const v = vectors.get(row);
      if (!v) return false;
      out.set(v);
      return true;
    },
    tag: (row) => row % 2,
    time: (row) => row,
  });
  return { vectors, tree };
}

const EVEN = Uint8Array.of(1, 0);

function topics(seed: number, count: number) {
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  const centres = Array.from({ length: count }, () => Float32Array.from({ length: DIMS }, random));
  return { near: (t: number) => normalize(centres[t]!.map((x) => x + random() * 0.5)) };
}

const sorted = (rows: Int32Array) => [...rows].sort((a, b) => a - b);

describe('PartitionTree', () => {
  it('holds every row once through splits, removals and moves, and forgets the removed ones', () => {
    const { vectors, tree } = rowsOf();
    const { near } = topics(3, 12);
    const n = LEAF_MAX * 12;
    for (let row = 0; row < n; row++) {
      vectors.set(row, near(row % 12));
      tree.insert(row);
    }
    // A third removed, a third moved to another topic (removed with its old vector, then inserted again).
    for (let row = 0; row < n; row += 3) {
      tree.remove(row);
      vectors.delete(row);
    }
    for (let row = 1; row < n; row += 3) {
      tree.remove(row);
      vectors.set(row, near((row + 5) % 12));
      tree.insert(row);
    }
    expect(tree.size).toBe(n - Math.ceil(n / 3));
    const all = sorted(tree.candidates(near(0), Infinity));
    expect(all).toEqual([...vectors.keys()].sort((a, b) => a - b));
    // After the space changed (every vector turned around), recentred: still every row once.
    for (const [row, v] of vectors) vectors.set(row, v.map((x) => -x));
    tree.recentre();
    expect(sorted(tree.candidates(near(0), Infinity))).toEqual(all);
  });

  it('offers the rows of the query\'s own topic first, and only rows that pass the filter', () => {
    const { vectors, tree } = rowsOf();
    const { near } = topics(5, 40);
    const n = 40 * 500;
    for (let row = 0; row < n; row++) {
      vectors.set(row, near(row % 40));
      tree.insert(row);
    }
    for (const topic of [0, 17, 39]) {
      const first = tree.candidates(near(topic), 300);
      expect(first.length).toBeGreaterThanOrEqual(300);
      const own = [...first].filter((row) => row % 40 === topic).length;
      expect(own / first.length).toBeGreaterThan(0.9);
      const even = tree.candidates(near(topic), 200, { tags: EVEN, since: -Infinity, until: Infinity });
      expect(even.length).toBeGreaterThanOrEqual(200);
      expect([...even].every((row) => row % 2 === 0)).toBe(true);
      const late = tree.candidates(near(topic), 200, { tags: EVEN, since: n / 2, until: n - 1_000 });
      expect(late.length).toBeGreaterThanOrEqual(200);
      expect([...late].every((row) => row % 2 === 0 && row >= n / 2 && row < n - 1_000)).toBe(true);
      // An even topic's rows are all even (an odd topic has none left: the nearest topics' rows come).
      if (topic % 2 === 0) expect([...late].filter((row) => row % 40 === topic).length / late.length).toBeGreaterThan(0.9);
    }
    // A filter nothing passes: every leaf visited, nothing offered.
    expect(tree.candidates(near(3), 10, { tags: Uint8Array.of(0, 0), since: -Infinity, until: Infinity })).toHaveLength(0);
    expect(tree.candidates(near(3), 10, { since: n, until: Infinity })).toHaveLength(0);
  });

  it('takes rows it cannot tell apart (the same text again and again) without losing any', () => {
    const { vectors, tree } = rowsOf();
    const same = normalize(Float32Array.from({ length: DIMS }, (_, d) => d + 1));
    const n = LEAF_MAX * 5;
    for (let row = 0; row < n; row++) {
      vectors.set(row, same);
      tree.insert(row);
    }
    expect(tree.size).toBe(n);
    expect(tree.candidates(same, Infinity)).toHaveLength(n);
  });
});
