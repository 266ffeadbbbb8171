import { describe, expect, it } from 'vitest';
import { clusterVectors } from './clustering';
import { communities, impliedResolution, louvain, neighbourGraph, type Graph } from './communities';
import { normalize } from './vectors';

/** A seeded generator (mulberry32), so every run draws the same sets. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `groups` groups of `size` nodes, each node linked to every other of its group and to `across` nodes of other groups. */
function planted(groups: number, size: number, across: number, seed: number): { graph: Graph; truth: number[] } {
  const rnd = random(seed);
  const n = groups * size;
  const links: Array<Map<number, number>> = Array.from({ length: n }, () => new Map());
  const link = (a: number, b: number) => {
    links[a]!.set(b, 1);
    links[b]!.set(a, 1);
  };
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) if (Math.floor(i / size) === Math.floor(j / size)) link(i, j);
    for (let c = 0; c < across; c++) {
      const j = Math.floor(rnd() * n);
      if (Math.floor(j / size) !== Math.floor(i / size)) link(i, j);
    }
  }
  const sorted = links.map((m) => [...m.keys()].sort((x, y) => x - y));
  return {
    graph: { neighbours: sorted.map((list) => Int32Array.from(list)), weights: sorted.map((list) => new Float64Array(list.length).fill(1)) },
    truth: Array.from({ length: n }, (_, i) => Math.floor(i / size)),
  };
}

/** True when the two labelings put the same items together. */
function samePartition(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  const pairs = new Map<number, number>();
  const back = new Map<number, number>();
  for (let i = 0; i < a.length; i++) {
    if ((pairs.get(a[i]!) ?? b[i]!) !== b[i]! || (back.get(b[i]!) ?? a[i]!) !== a[i]!) return false;
    pairs.set(a[i]!, b[i]!);
    back.set(b[i]!, a[i]!);
  }
  return true;
}

describe('communities of a neighbour graph', () => {
  it('finds planted groups, few or many, at the resolution the graph implies where a fixed one merges them', () => {
    const few = planted(4, 12, 3, 1);
    expect(samePartition(communities(few.graph), few.truth)).toBe(true);
    // 60 groups: at modularity's usual resolution (γ = 1) groups joined by a few links merge in pairs.
    const many = planted(60, 12, 3, 2);
    const fixed = louvain(many.graph, 1);
    expect(new Set(fixed).size).toBeLessThan(60);
    expect(samePartition(communities(many.graph), many.truth)).toBe(true);
    expect(impliedResolution(many.graph, Int32Array.from(many.truth))!).toBeGreaterThan(impliedResolution(few.graph, Int32Array.from(few.truth))!);
  });

  it('weighs each vector\'s nearest neighbour 1 and joins the two directions as a fuzzy union', () => {
    // Four vectors on a line of similarities: 0's neighbours are 1 then 2, and so on.
    const near = Int32Array.from([1, 2, 0, 2, 1, 3, 2, 1]);
    const sims = Float32Array.from([0.9, 0.5, 0.9, 0.8, 0.8, 0.7, 0.7, 0.4]);
    const graph = neighbourGraph(near, sims, 4, 2);
    const weight = (a: number, b: number) => graph.weights[a]![graph.neighbours[a]!.indexOf(b)]!;
    for (let a = 0; a < 4; a++) for (const b of graph.neighbours[a]!) expect(weight(b, a)).toBe(weight(a, b));
    expect(weight(0, 1)).toBe(1);
    expect(weight(2, 3)).toBe(1);
    // 0 → 2 is 0's second neighbour and 2 does not name 0: the union is that one direction's weight, under 1.
    expect(weight(0, 2)).toBeGreaterThan(0);
    expect(weight(0, 2)).toBeLessThan(1);
  });

  it('groups clouds of vectors into their themes, in one matrix or in cells, whatever the number of themes, and one theme as one', () => {
    const dims = 24;
    const clouds = (themes: number, per: number, seed: number) => {
      const rnd = random(seed);
      const centres = Array.from({ length: themes }, () => normalize(Float32Array.from({ length: dims }, () => rnd() - 0.5)));
      const vectors = new Float32Array(themes * per * dims);
      for (let i = 0; i < themes * per; i++) {
        const v = Float32Array.from(centres[i % themes]!, (x) => x + (rnd() - 0.5) * 0.25);
        vectors.set(normalize(v), i * dims);
      }
      return { vectors, truth: Array.from({ length: themes * per }, (_, i) => i % themes) };
    };
    const options = { threshold: 0.35, neighbours: { count: 5, threshold: 0.4 }, communities: true };
    // One theme said 120 times with small variations in 12 directions: modularity alone cuts it into pieces.
    const rnd = random(7);
    const centre = normalize(Float32Array.from({ length: dims }, () => rnd() - 0.5));
    const ways = Array.from({ length: 12 }, () => normalize(Float32Array.from({ length: dims }, () => rnd() - 0.5)));
    const oneTheme = new Float32Array(120 * dims);
    for (let i = 0; i < 120; i++) oneTheme.set(normalize(Float32Array.from(centre, (x, d) => x + 0.35 * ways[i % 12]![d]! + (rnd() - 0.5) * 0.05)), i * dims);
    expect(clusterVectors(oneTheme, dims, options).sizes).toEqual(Int32Array.from([120]));
    for (const [themes, per] of [[3, 40], [12, 40]] as const) {
      const { vectors, truth } = clouds(themes, per, themes);
      expect(samePartition(clusterVectors(vectors, dims, options).labels, truth)).toBe(true);
      expect(samePartition(clusterVectors(vectors, dims, { ...options, exactLimit: 100 }).labels, truth)).toBe(true);
    }
  });
});
