/**
 * Communities of a k-nearest-neighbour graph: the way single-cell and embedding pipelines group points
 * (scanpy, Seurat: neighbours → fuzzy graph → Louvain/Leiden), with the resolution learned from the graph.
 *
 * - Edges: each vector's k nearest neighbours, weighted as UMAP weighs them (McInnes et al. 2018): 1 for the
 *   nearest, decaying with the distance past it at the rate that makes a vector's weights sum to log2(k),
 *   so dense and sparse regions weigh alike; the two directions joined as a fuzzy union (a + b − ab).
 * - Grouping: Louvain (Blondel et al. 2008) on modularity with resolution γ: nodes move to the neighbour
 *   community that gains most, communities become nodes, again, until nothing moves.
 * - Resolution: Newman's (2016) equivalence of modularity with the planted-partition model gives the γ that
 *   a partition itself implies, (ω_in − ω_out) / (ln ω_in − ln ω_out) with ω_in, ω_out the densities inside
 *   and between its communities. Starting from γ = 1, partition and γ are re-estimated in turn until γ
 *   settles: the graph's own contrast sets the scale, so a product of 15 themes and one of 150 are both
 *   cut at their own, with no threshold tuned to a set.
 * Deterministic: nodes are visited in index order, ties go to the lower community.
 */

/** A symmetric weighted graph as adjacency lists (each edge listed from both ends). */
export interface Graph {
  neighbours: Int32Array[];
  weights: Float64Array[];
}

/**
 * The fuzzy k-nearest-neighbour graph of vectors given each one's neighbours (`near`, k per vector, -1 for
 * none) and their similarities (`nearSim`, cosines): distance 1 − cosine.
 */
export function neighbourGraph(near: Int32Array, nearSim: Float32Array, n: number, k: number): Graph {
  const directed: Array<Map<number, number>> = Array.from({ length: n }, () => new Map());
  const target = Math.log2(k);
  for (let i = 0; i < n; i++) {
    const list: Array<[number, number]> = [];
    for (let q = i * k; q < i * k + k; q++) if (near[q]! >= 0) list.push([near[q]!, 1 - nearSim[q]!]);
    if (!list.length) continue;
    const rho = Math.min(...list.map(([, d]) => d));
    // σ such that Σ exp(−(d − ρ)/σ) = log2(k), by bisection (UMAP's smooth_knn_dist).
    let lo = 0;
    let hi = Infinity;
    let sigma = 1;
    for (let step = 0; step < 64; step++) {
      const sum = list.reduce((a, [, d]) => a + Math.exp(-Math.max(0, d - rho) / sigma), 0);
      if (Math.abs(sum - target) < 1e-5) break;
      if (sum > target) hi = sigma;
      else lo = sigma;
      sigma = hi === Infinity ? sigma * 2 : (lo + hi) / 2;
    }
    for (const [j, d] of list) directed[i]!.set(j, Math.exp(-Math.max(0, d - rho) / sigma));
  }
  const joined: Array<Map<number, number>> = Array.from({ length: n }, () => new Map());
  for (let i = 0; i < n; i++) {
    for (const [j, a] of directed[i]!) {
      const b = directed[j]!.get(i) ?? 0;
      const w = a + b - a * b;
      joined[i]!.set(j, w);
      joined[j]!.set(i, w);
    }
  }
  return {
    neighbours: joined.map((m) => Int32Array.from([...m.keys()].sort((x, y) => x - y))),
    weights: joined.map((m) => Float64Array.from([...m.keys()].sort((x, y) => x - y), (j) => m.get(j)!)),
  };
}

/** Louvain communities of the graph at resolution γ: a community number per node, numbered by first node. */
export function louvain(graph: Graph, gamma: number): Int32Array {
  const n = graph.neighbours.length;
  const degree = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const w = graph.weights[i]!;
    for (let e = 0; e < w.length; e++) degree[i]! += w[e]!;
    total += degree[i]!;
  }
  const community = Int32Array.from({ length: n }, (_, i) => i);
  if (total === 0) return community;
  const communityDegree = Float64Array.from(degree);
  const links = new Float64Array(n);
  const touched: number[] = [];
  let movedAny = false;
  for (let moved = true; moved; ) {
    moved = false;
    for (let i = 0; i < n; i++) {
      const from = community[i]!;
      const nb = graph.neighbours[i]!;
      const w = graph.weights[i]!;
      for (let e = 0; e < nb.length; e++) {
        const j = nb[e]!;
        if (j === i) continue;
        const c = community[j]!;
        if (links[c] === 0) touched.push(c);
        links[c]! += w[e]!;
      }
      communityDegree[from]! -= degree[i]!;
      const gain = (c: number) => links[c]! - (gamma * communityDegree[c]! * degree[i]!) / total;
      let best = from;
      let bestGain = gain(from);
      for (const c of touched.sort((a, b) => a - b)) {
        const g = gain(c);
        if (g > bestGain + 1e-12) {
          best = c;
          bestGain = g;
        }
      }
      for (const c of touched) links[c] = 0;
      touched.length = 0;
      communityDegree[best]! += degree[i]!;
      if (best !== from) {
        community[i] = best;
        moved = movedAny = true;
      }
    }
  }
  const numbered = renumbered(community);
  const count = numbered.reduce((most, c) => Math.max(most, c + 1), 0);
  if (!movedAny || count === n) return numbered;
  // The communities as nodes of a smaller graph (a community's inner edges become a loop), grouped again.
  const merged: Array<Map<number, number>> = Array.from({ length: count }, () => new Map());
  for (let i = 0; i < n; i++) {
    const a = numbered[i]!;
    const nb = graph.neighbours[i]!;
    const w = graph.weights[i]!;
    for (let e = 0; e < nb.length; e++) {
      const b = numbered[nb[e]!]!;
      merged[a]!.set(b, (merged[a]!.get(b) ?? 0) + w[e]!);
    }
  }
  const upper = louvain({
    neighbours: merged.map((m) => Int32Array.from([...m.keys()].sort((x, y) => x - y))),
    weights: merged.map((m) => Float64Array.from([...m.keys()].sort((x, y) => x - y), (j) => m.get(j)!)),
  }, gamma);
  return renumbered(numbered.map((c) => upper[c]!));
}

function renumbered(community: Int32Array): Int32Array {
  const ids = new Map<number, number>();
  return community.map((c) => {
    if (!ids.has(c)) ids.set(c, ids.size);
    return ids.get(c)!;
  });
}

/** The resolution a partition implies (Newman 2016): from the densities of edges inside and between its communities. */
export function impliedResolution(graph: Graph, community: Int32Array): number | undefined {
  const n = graph.neighbours.length;
  const communityDegree = new Map<number, number>();
  let total = 0;
  let inside = 0;
  for (let i = 0; i < n; i++) {
    const nb = graph.neighbours[i]!;
    const w = graph.weights[i]!;
    let d = 0;
    for (let e = 0; e < nb.length; e++) {
      d += w[e]!;
      if (community[nb[e]!] === community[i]) inside += w[e]!;
    }
    total += d;
    communityDegree.set(community[i]!, (communityDegree.get(community[i]!) ?? 0) + d);
  }
  let squares = 0;
  for (const d of communityDegree.values()) squares += d * d;
  const expectedInside = squares / total;
  const wIn = inside / expectedInside;
  const wOut = (total - inside) / (total - expectedInside);
  if (!(wIn > 0 && wOut > 0) || wIn === wOut) return undefined;
  return (wIn - wOut) / (Math.log(wIn) - Math.log(wOut));
}

/** At most this many rounds of partition and resolution; they settle in 4 to 8 on CLINC150. */
const RESOLUTION_ROUNDS = 20;

/** Louvain communities at the resolution they imply (see above). */
export function communities(graph: Graph): Int32Array {
  let gamma = 1;
  let community = louvain(graph, gamma);
  for (let round = 0; round < RESOLUTION_ROUNDS; round++) {
    const next = impliedResolution(graph, community);
    if (next === undefined || Math.abs(next - gamma) < 0.01 * gamma) break;
    gamma = next;
    community = louvain(graph, gamma);
  }
  return community;
}
