/** Clustering and retrieval scores against known labels (labels are for scoring only). */

function comb2(n: number): number {
  return (n * (n - 1)) / 2;
}

function contingency(labels: readonly string[], clusters: readonly string[]) {
  const table = new Map<string, Map<string, number>>();
  const byLabel = new Map<string, number>();
  const byCluster = new Map<string, number>();
  labels.forEach((label, i) => {
    const c = clusters[i]!;
    const row = table.get(label) ?? new Map<string, number>();
    row.set(c, (row.get(c) ?? 0) + 1);
    table.set(label, row);
    byLabel.set(label, (byLabel.get(label) ?? 0) + 1);
    byCluster.set(c, (byCluster.get(c) ?? 0) + 1);
  });
  return { table, byLabel, byCluster, n: labels.length };
}

/** Normalised mutual information (arithmetic mean of the entropies, as scikit-learn's default). */
export function nmi(labels: readonly string[], clusters: readonly string[]): number {
  const { table, byLabel, byCluster, n } = contingency(labels, clusters);
  const entropy = (counts: Iterable<number>) => {
    let h = 0;
    for (const c of counts) h -= (c / n) * Math.log(c / n);
    return h;
  };
  let mi = 0;
  for (const [label, row] of table) {
    for (const [c, nij] of row) mi += (nij / n) * Math.log((n * nij) / (byLabel.get(label)! * byCluster.get(c)!));
  }
  const hl = entropy(byLabel.values());
  const hc = entropy(byCluster.values());
  return hl + hc === 0 ? 1 : (2 * mi) / (hl + hc);
}

/** Adjusted Rand index. */
export function ari(labels: readonly string[], clusters: readonly string[]): number {
  const { table, byLabel, byCluster, n } = contingency(labels, clusters);
  let index = 0;
  for (const row of table.values()) for (const nij of row.values()) index += comb2(nij);
  let a = 0;
  for (const c of byLabel.values()) a += comb2(c);
  let b = 0;
  for (const c of byCluster.values()) b += comb2(c);
  const expected = (a * b) / comb2(n);
  const max = (a + b) / 2;
  return max === expected ? 1 : (index - expected) / (max - expected);
}

export function largestShare(clusters: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const c of clusters) counts.set(c, (counts.get(c) ?? 0) + 1);
  return Math.max(...counts.values()) / clusters.length;
}

/** Mean over queries of the share of the first k results that carry the query's label. */
export function precisionAtK(queryLabels: readonly string[], resultLabels: readonly (readonly string[])[], k = 10): number {
  let sum = 0;
  queryLabels.forEach((label, i) => {
    const top = resultLabels[i]!.slice(0, k);
    sum += top.filter((l) => l === label).length / k;
  });
  return sum / queryLabels.length;
}

export function readLabelledCsv(text: string): Array<{ text: string; label: string }> {
  return text
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const at = line.lastIndexOf(',');
      return { text: line.slice(0, at).replace(/^"|"$/g, '').replaceAll('""', '"'), label: line.slice(at + 1) };
    });
}
