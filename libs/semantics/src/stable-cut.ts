/**
 * Which clusters of an average-link tree to keep when one constant cut does not suit every theme: the
 * excess-of-mass selection of HDBSCAN (Campello, Moulavi and Sander 2013; the default of the hdbscan
 * library BERTopic groups with), over the tree's merges between `floor` and the cut.
 *
 * One constant cut keeps a loose theme in pieces (its signals are less alike on average than the cut
 * asks, however much evidence comes) while it keeps close themes apart. Here each branch of the tree is
 * judged on its own: a cluster is kept when it lasts, summed over its members, at least as long as the
 * clusters it splits into (its stability: Σ over members of the similarity at which the member leaves it,
 * less the similarity at which it appeared). A loose theme whose pieces join well below the cut and stay
 * together down to the floor is kept whole; two themes that join only briefly before the floor stay apart.
 *
 * A cluster needs at least `minSize` members, learned from the product itself: half the size of the
 * cluster the cut puts the median signal in (at least 3), so a product whose themes hold a few signals
 * each keeps small clusters and one whose themes hold hundreds does not keep fragments of ten. A signal in
 * no kept cluster stays with its cut cluster: with the kept cluster holding most of that, else with the
 * rest of it. A group left smaller than `minSize` is no cluster either: the caller, which has the vectors,
 * hands it to the cluster it is most alike (clustering.ts, `attachSmall`).
 */

/** A merge of the tree: the two clusters (by their lowest member) and their average similarity. */
export type Merge = [number, number, number];

/** The smallest size a kept cluster may have, at least this. */
const MIN_SIZE_FLOOR = 3;

/** Merges in the order average link made them: most alike first, ties by the lower groups. */
const mostAlikeFirst = (p: Merge, q: Merge) => q[2] - p[2] || p[0] - q[0] || p[1] - q[1];

/** Disjoint sets over n items, each set named by its lowest item. */
function unionFind(n: number) {
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  /** Joins the sets of x and y; returns the name of the joined set. */
  const union = (x: number, y: number) => {
    const [rx, ry] = [find(x), find(y)];
    parent[Math.max(rx, ry)] = Math.min(rx, ry);
    return Math.min(rx, ry);
  };
  /** The name of each item's set. */
  const names = () => Int32Array.from({ length: n }, (_, i) => find(i));
  return { find, union, names };
}

/** Group of each item (the lowest item of its group) when the merges at or above `threshold` are applied. */
export function cutAt(n: number, merges: readonly Merge[], threshold: number): Int32Array {
  return cutToCount(n, merges, 1, threshold);
}

/**
 * Group of each item (the lowest item of its group) when the merges are applied most alike first until
 * `count` groups are left, never one below `threshold`.
 */
export function cutToCount(n: number, merges: readonly Merge[], count: number, threshold: number): Int32Array {
  const sets = unionFind(n);
  let groups = n;
  for (const [x, y, s] of [...merges].sort(mostAlikeFirst)) {
    if (groups <= count || s < threshold) break;
    sets.union(x, y);
    groups--;
  }
  return sets.names();
}

/**
 * Half the size of the group holding the median item (groups by size, each weighing its size), at least
 * MIN_SIZE_FLOOR; an item weighs `weights[i]` (1 each by default).
 */
export function learnedMinSize(groups: Int32Array, weights?: ArrayLike<number>): number {
  const sizes = new Map<number, number>();
  let total = 0;
  groups.forEach((g, i) => {
    const w = weights?.[i] ?? 1;
    sizes.set(g, (sizes.get(g) ?? 0) + w);
    total += w;
  });
  const sorted = [...sizes.values()].sort((a, b) => a - b);
  let seen = 0;
  let median = 0;
  for (const size of sorted) {
    seen += size;
    median = size;
    if (seen >= total / 2) break;
  }
  return Math.max(MIN_SIZE_FLOOR, Math.round(median / 2));
}

/** The tree of merges at or above `floor`: node ids 0..n−1 are the items, n.. the merges in order of decreasing similarity. */
function buildTree(n: number, merges: readonly Merge[], floor: number, weights?: ArrayLike<number>) {
  const kept = merges.filter((m) => m[2] >= floor).sort(mostAlikeFirst);
  const total = n + kept.length;
  const left = new Int32Array(total).fill(-1);
  const right = new Int32Array(total).fill(-1);
  const level = new Float64Array(total).fill(Infinity);
  const size = Float64Array.from({ length: total }, (_, i) => (i < n ? weights?.[i] ?? 1 : 0));
  const sets = unionFind(n);
  // The tree node each set stands for now, by the set's name.
  const nodeOf = Int32Array.from({ length: n }, (_, i) => i);
  kept.forEach(([x, y, s], k) => {
    const node = n + k;
    left[node] = nodeOf[sets.find(x)]!;
    right[node] = nodeOf[sets.find(y)]!;
    level[node] = s;
    size[node] = size[left[node]!]! + size[right[node]!]!;
    nodeOf[sets.union(x, y)] = node;
  });
  const tops: number[] = [];
  for (let i = 0; i < n; i++) if (sets.find(i) === i) tops.push(nodeOf[i]!);
  return { left, right, level, size, tops };
}

/** Items under a node of the tree. */
function itemsUnder(tree: ReturnType<typeof buildTree>, node: number, n: number): number[] {
  const out: number[] = [];
  const stack = [node];
  while (stack.length) {
    const v = stack.pop()!;
    if (v < n) out.push(v);
    else stack.push(tree.left[v]!, tree.right[v]!);
  }
  return out;
}

/** The groups chosen along the tree (lowest member of each), and the smallest size a cluster may have there. */
export interface StableGroups {
  groups: Int32Array;
  minSize: number;
}

/** An item weighs `weights[i]` (1 each by default): a group of items taken together, as its size. */
export function stableCut(n: number, merges: readonly Merge[], threshold: number, floor: number, weights?: ArrayLike<number>): StableGroups {
  const cut = cutAt(n, merges, threshold);
  const minSize = learnedMinSize(cut, weights);
  const condensed = condense(buildTree(n, merges, floor, weights), n, minSize, floor);
  return { groups: withCutForTheRest(cut, keptLabels(condensed, excessOfMass(condensed), n)), minSize };
}

/** HDBSCAN's condensed tree: clusters of at least minSize, created parents first. */
interface Condensed {
  stability: number[];
  /** The two clusters each splits into (none: a leaf). */
  children: number[][];
  /** The items that leave each directly (too few to be a cluster where they leave). */
  items: number[][];
  /** Clusters that are no cluster's child. */
  tops: number[];
}

function condense(tree: ReturnType<typeof buildTree>, n: number, minSize: number, floor: number): Condensed {
  const out: Condensed = { stability: [], children: [], items: [], tops: [] };
  const born: number[] = [];
  const open = (bornAt: number) => {
    out.stability.push(0);
    out.children.push([]);
    out.items.push([]);
    born.push(bornAt);
    return born.length - 1;
  };
  const large = (node: number) => tree.size[node]! >= minSize;
  for (const top of tree.tops) {
    if (!large(top)) continue;
    const first = open(floor);
    out.tops.push(first);
    const stack: Array<[node: number, cluster: number]> = [[top, first]];
    while (stack.length) {
      const [node, c] = stack.pop()!;
      if (node < n) {
        out.items[c]!.push(node);
        continue;
      }
      const at = tree.level[node]!;
      const sides = [tree.left[node]!, tree.right[node]!];
      if (sides.every(large)) {
        // A true split: every member leaves c here, into one of two new clusters.
        out.stability[c]! += tree.size[node]! * (at - born[c]!);
        for (const side of sides) {
          const child = open(at);
          out.children[c]!.push(child);
          stack.push([side, child]);
        }
        continue;
      }
      for (const side of sides) {
        if (large(side)) {
          stack.push([side, c]);
        } else {
          // Too few to be a cluster: they leave c here.
          const leaving = itemsUnder(tree, side, n);
          out.stability[c]! += tree.size[side]! * (at - born[c]!);
          out.items[c]!.push(...leaving);
        }
      }
    }
  }
  return out;
}

/** Excess of mass, children before parents: a cluster is kept when it is at least as stable as the best of what it splits into. */
function excessOfMass({ stability, children }: Condensed): Uint8Array {
  const kept = new Uint8Array(stability.length);
  const best = new Float64Array(stability.length);
  for (let c = stability.length - 1; c >= 0; c--) {
    const below = children[c]!.reduce((sum, child) => sum + best[child]!, 0);
    if (children[c]!.length === 0 || stability[c]! >= below) {
      best[c] = stability[c]!;
      kept[c] = 1;
    } else {
      best[c] = below;
    }
  }
  return kept;
}

/** Each item's kept cluster (the highest kept one above it), −1 for an item under none. */
function keptLabels({ children, items, tops }: Condensed, kept: Uint8Array, n: number): Int32Array {
  const label = new Int32Array(n).fill(-1);
  const stack: Array<[cluster: number, owner: number]> = tops.map((c) => [c, -1]);
  while (stack.length) {
    const [c, above] = stack.pop()!;
    const owner = above >= 0 ? above : kept[c] ? c : -1;
    if (owner >= 0) for (const i of items[c]!) label[i] = owner;
    for (const child of children[c]!) stack.push([child, owner]);
  }
  return label;
}

/**
 * Groups (lowest member of each) from the kept clusters' labels: an item of no kept cluster joins the kept
 * cluster holding most of its cut group, else stays with the rest of its cut group.
 */
function withCutForTheRest(cut: Int32Array, label: Int32Array): Int32Array {
  const n = cut.length;
  const votes = new Map<number, Map<number, number>>();
  for (let i = 0; i < n; i++) {
    if (label[i]! < 0) continue;
    const tally = votes.get(cut[i]!) ?? new Map<number, number>();
    tally.set(label[i]!, (tally.get(label[i]!) ?? 0) + 1);
    votes.set(cut[i]!, tally);
  }
  const majority = new Map<number, number>();
  for (const [group, tally] of votes) majority.set(group, [...tally].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0]);
  // Keys: kept clusters as they are, the rest by cut group (offset past every cluster id).
  const key = (i: number) => (label[i]! >= 0 ? label[i]! : majority.get(cut[i]!) ?? n + cut[i]!);
  const lowest = new Map<number, number>();
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const k = key(i);
    if (!lowest.has(k)) lowest.set(k, i);
    out[i] = lowest.get(k)!;
  }
  return out;
}
