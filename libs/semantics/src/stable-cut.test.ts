import { describe, expect, it } from 'vitest';
import { cutAt, cutToCount, learnedMinSize, stableCut, type Merge } from './stable-cut';

/**
 * Merges of a tree written as clusters: `build(items, levels)` joins the items pairwise at levels[0], the
 * pairs pairwise at levels[1], and so on, as average link reports them (each side by its lowest item).
 */
function build(items: number[], levels: number[], out: Merge[]): number[] {
  let groups = items.map((i) => [i]);
  for (const level of levels) {
    const next: number[][] = [];
    for (let g = 0; g + 1 < groups.length; g += 2) {
      out.push(join(groups[g]!, groups[g + 1]!, level));
      next.push([...groups[g]!, ...groups[g + 1]!]);
    }
    groups = next;
  }
  return groups[0]!;
}

function join(a: number[], b: number[], level: number): Merge {
  const [x, y] = [Math.min(...a), Math.min(...b)];
  return [Math.min(x, y), Math.max(x, y), level];
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
const groupsOf = (labels: Int32Array) => {
  const byLabel = new Map<number, number[]>();
  labels.forEach((l, i) => byLabel.set(l, [...(byLabel.get(l) ?? []), i]));
  return [...byLabel.values()].sort((a, b) => a[0]! - b[0]!);
};

describe('stableCut', () => {
  it('keeps a loose theme whole: its two halves join below the cut and stay together down to the floor', () => {
    const merges: Merge[] = [];
    const a = build(range(0, 8), [0.5, 0.45, 0.42], merges);
    const b = build(range(8, 8), [0.5, 0.45, 0.42], merges);
    const c = build(range(16, 8), [0.5, 0.45, 0.42], merges);
    merges.push(join(a, b, 0.38));
    merges.push(join([...a, ...b], c, 0.1));
    // The cut at 0.4 leaves the loose theme in two pieces.
    expect(groupsOf(cutAt(24, merges, 0.4))).toEqual([range(0, 8), range(8, 8), range(16, 8)]);
    expect(groupsOf(stableCut(24, merges, 0.4, 0.25).groups)).toEqual([range(0, 16), range(16, 8)]);
  });

  it('keeps two tight themes apart when they join only just above the floor', () => {
    const merges: Merge[] = [];
    const a = build(range(0, 8), [0.9, 0.85, 0.8], merges);
    const b = build(range(8, 8), [0.9, 0.85, 0.8], merges);
    merges.push(join(a, b, 0.27));
    expect(groupsOf(stableCut(16, merges, 0.4, 0.25).groups)).toEqual([range(0, 8), range(8, 8)]);
  });

  it('never joins what is less alike than the floor, and a group too small to be a cluster stays as the cut left it', () => {
    const merges: Merge[] = [];
    const a = build(range(0, 8), [0.5, 0.45, 0.42], merges);
    const b = build(range(8, 8), [0.5, 0.45, 0.42], merges);
    // A pair and a lone item, each below the smallest cluster size, joining the others below the floor.
    merges.push(join([16], [17], 0.6));
    merges.push(join(a, b, 0.2));
    merges.push(join([...a, ...b], [16, 17], 0.15));
    merges.push(join([...a, ...b, 16, 17], [18], 0.1));
    const chosen = stableCut(19, merges, 0.4, 0.25);
    expect(groupsOf(chosen.groups)).toEqual([range(0, 8), range(8, 8), [16, 17], [18]]);
    // Half the cut's group of the median item (8), for the caller to hand smaller groups on.
    expect(chosen.minSize).toBe(4);
  });

  it('gives every item the lowest item of its group, whatever order the merges come in', () => {
    const merges: Merge[] = [];
    const a = build(range(0, 8), [0.5, 0.45, 0.42], merges);
    const b = build(range(8, 8), [0.5, 0.45, 0.42], merges);
    merges.push(join(a, b, 0.38));
    const forward = stableCut(16, merges, 0.4, 0.25).groups;
    expect([...forward]).toEqual(Array(16).fill(0));
    expect(stableCut(16, [...merges].reverse(), 0.4, 0.25).groups).toEqual(forward);
  });
});

describe('cutToCount', () => {
  it('applies the merges most alike first until that many groups are left, never one below the threshold', () => {
    const merges: Merge[] = [];
    const a = build(range(0, 4), [0.9, 0.7], merges);
    const b = build(range(4, 4), [0.8, 0.6], merges);
    merges.push(join(a, b, 0.3));
    expect(groupsOf(cutToCount(8, merges, 4, 0.4))).toEqual([[0, 1], [2, 3], [4, 5], [6, 7]]);
    expect(groupsOf(cutToCount(8, merges, 3, 0.4))).toEqual([[0, 1, 2, 3], [4, 5], [6, 7]]);
    expect(groupsOf(cutToCount(8, merges, 1, 0.4))).toEqual([range(0, 4), range(4, 4)]);
  });
});

describe('stableCut with weights', () => {
  it('counts an item as the group it stands for', () => {
    const merges: Merge[] = [];
    const a = build(range(0, 8), [0.5, 0.45, 0.42], merges);
    const b = build(range(8, 8), [0.5, 0.45, 0.42], merges);
    merges.push(join(a, b, 0.38));
    // The same tree, each item standing for 3: the loose theme is still one group.
    expect(groupsOf(stableCut(16, merges, 0.4, 0.25, Array(16).fill(3)).groups)).toEqual([range(0, 16)]);
    expect(learnedMinSize(cutAt(16, merges, 0.4), Array(16).fill(3))).toBe(12);
  });
});

describe('learnedMinSize', () => {
  it('is half the size of the group the median item is in, at least 3', () => {
    // Groups of 2, 2, 10 and 12: by size, the median item (13th of 26) is in the group of 10.
    const groups = Int32Array.from([...Array(2).fill(0), ...Array(2).fill(2), ...Array(12).fill(4), ...Array(10).fill(16)]);
    expect(learnedMinSize(groups)).toBe(5);
    expect(learnedMinSize(Int32Array.from(range(0, 10)))).toBe(3);
  });
});
