/**
 * The in-memory semantic index of find_sources (libs/semantics VectorIndex) at 10,000 / 100,000 /
 * 1,000,000 sources: time to fill it, memory, the time of one query without and with a product filter,
 * and how many of the exact scan's 30 best the answer holds. The vectors are real: each source is the
 * vector of a text made of two CLINC150 texts of the same intent (in random shares) and a fifth of a
 * text of any intent, which is what the embedder gives for such a text (its dense part is a weighted
 * average of word vectors, before the common component goes). One intent in ten is kept out of the
 * fill; once filled, 20 sources of each arrive, and their own texts ask for them: the recall of a
 * theme new to a large workspace, which a partition built before it came serves least well. Earlier versions added random noise to
 * repeated texts instead; that noise was longer than the texts' own centred vectors (0.58 against 0.40)
 * and chose the exact 30 best by itself, which no text does. This is where the in-process index stops
 * paying and pgvector takes over (docs/architecture/search.md: scaling path).
 *
 *   npm run bench:vector-index      (BENCH_VECTORS=10000,100000,1000000)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEmbedder, loadWordVectors, quantize, VectorIndex, type IndexFilter, type IndexHit, type IndexItem } from '@loupe/semantics';
import { readLabelledCsv } from '../eval/metrics';
import { machine, percentile, round } from './lib';

export interface VectorIndexScale {
  vectors: number;
  fillSeconds: number;
  heapMb: number;
  queryP50Ms: number;
  queryP99Ms: number;
  filteredP50Ms: number;
  /** A selective filter (a product, a project and the latest 30 % of the dates: ~4 % pass), as find_sources' facets make one. */
  selectiveP50Ms: number;
  selectiveP99Ms: number;
  /** Share of the exact scan's 30 best passing the selective filter that its answer holds. */
  selectiveRecallAt30: number;
  /** Share of the exact scan's 30 best the answered ones hold (1 below the partition tree's size). */
  recallAt30: number;
  /** The same for queries of the intents added after the fill. */
  newThemeRecallAt30: number;
}

/** Two projects, sources spread over them unevenly (4 of every 7 in the first). */
const PROJECTS = ['proj_a', 'proj_b'];

export async function runVectorIndexBench(): Promise<{ machine: string; scales: VectorIndexScale[] }> {
  const dir = path.resolve(import.meta.dirname, '../../../shared/data');
  const labelled = [
    ...readLabelledCsv(await readFile(path.join(dir, 'clinc150-test.csv'), 'utf8')),
    ...readLabelledCsv(await readFile(path.join(dir, 'clinc150-val.csv'), 'utf8')),
  ];
  const texts = labelled.map((r) => r.text);
  const embedder = createEmbedder(loadWordVectors());
  const dense = texts.map((t) => embedder.embed(t).slice(0, embedder.denseDims));
  const sameIntent = new Map<string, number[]>();
  labelled.forEach((r, i) => sameIntent.set(r.label, [...(sameIntent.get(r.label) ?? []), i]));
  const newThemes = [...sameIntent.keys()].filter((_, i) => i % 10 === 0);
  const known = labelled.flatMap((r, i) => (newThemes.includes(r.label) ? [] : [i]));
  let seed = 7;
  /** Uniform in [0, 1). */
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const sourceVector = (text: number) => {
    const partner = dense[pick(sameIntent.get(labelled[text]!.label)!)]!;
    const aside = dense[pick(known)]!;
    const share = 0.25 + random() * 0.5;
    return dense[text]!.map((x, d) => share * x + (1 - share) * partner[d]! + 0.2 * aside[d]!);
  };
  const scales: VectorIndexScale[] = [];
  for (const n of (process.env.BENCH_VECTORS ?? '10000,100000,1000000').split(',').map(Number)) {
    globalThis.gc?.();
    const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const index = new VectorIndex(embedder.denseDims);
    let t = performance.now();
    for (let at = 0; at < n; at += 2_000) {
      const page: IndexItem[] = [];
      for (let i = at; i < Math.min(n, at + 2_000); i++) {
        page.push({ id: `src_${i.toString(36).padStart(10, '0')}`, vector: quantize(sourceVector(known[i % known.length]!)), product: `prod_${i % 4}`, type: 'email', nature: 'evidence', at: i, projects: [PROJECTS[i % 7 % 2]!] });
      }
      index.upsert(page);
    }
    const fillSeconds = round((performance.now() - t) / 1000, 1);
    globalThis.gc?.();
    const heapMb = round((process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore) / 2 ** 20);
    const times: number[] = [];
    const filtered: number[] = [];
    const selective: number[] = [];
    const recall = { kept: 0, wanted: 0 };
    const selectiveRecall = { kept: 0, wanted: 0 };
    const selectiveFilter = { product: 'prod_1', project: PROJECTS[0], since: Math.floor(n * 0.7) };
    const compare = (query: Float32Array, hits: IndexHit[], into: typeof recall, filter: IndexFilter = {}) => {
      const exact = new Set(index.search(query, 30, filter, 0.3, true).map((h) => h.id));
      into.kept += hits.filter((h) => exact.has(h.id)).length;
      into.wanted += exact.size;
    };
    for (let q = 0; q < 60; q++) {
      const query = dense[known[(q * 97) % known.length]!]!;
      t = performance.now();
      const hits = index.search(query, 30, {}, 0.3);
      times.push(performance.now() - t);
      compare(query, hits, recall);
      t = performance.now();
      index.search(query, 30, { product: 'prod_1' }, 0.3);
      filtered.push(performance.now() - t);
      t = performance.now();
      const narrow = index.search(query, 30, selectiveFilter, 0.3);
      selective.push(performance.now() - t);
      compare(query, narrow, selectiveRecall, selectiveFilter);
    }
    const newRecall = { kept: 0, wanted: 0 };
    if (n >= 1_000) {
      index.upsert(newThemes.flatMap((theme, k) => sameIntent.get(theme)!.slice(0, 20).map((text, j) => ({
        id: `new_${k}_${j}`, vector: quantize(sourceVector(text)), product: 'prod_0', type: 'email', nature: 'evidence', at: n + k * 20 + j, projects: [],
      }))));
      for (const theme of newThemes) {
        const query = dense[sameIntent.get(theme)!.at(-1)!]!;
        compare(query, index.search(query, 30, {}, 0.3), newRecall);
      }
    }
    times.sort((a, b) => a - b);
    filtered.sort((a, b) => a - b);
    selective.sort((a, b) => a - b);
    scales.push({ vectors: n, fillSeconds, heapMb, queryP50Ms: round(percentile(times, 50), 1), queryP99Ms: round(percentile(times, 99), 1), filteredP50Ms: round(percentile(filtered, 50), 1),
      selectiveP50Ms: round(percentile(selective, 50), 1), selectiveP99Ms: round(percentile(selective, 99), 1), selectiveRecallAt30: round(selectiveRecall.wanted ? selectiveRecall.kept / selectiveRecall.wanted : 1, 3),
      recallAt30: round(recall.wanted ? recall.kept / recall.wanted : 1, 3), newThemeRecallAt30: round(newRecall.wanted ? newRecall.kept / newRecall.wanted : 1, 3),
    });
    console.error(`bench:vector-index ${n} done`);
  }
  return { machine: machine(), scales };
}

export function printVectorIndex(f: { machine: string; scales: VectorIndexScale[] }): void {
  console.log(`\nSemantic index, one thread (${f.machine})`);
  console.log(vectorIndexTable(f.scales));
}

/** The figures as a markdown table (the console's and the report's). */
export function vectorIndexTable(scales: readonly VectorIndexScale[]): string {
  return [
    '| sources | fill s | memory MB | query p50 ms | query p99 ms | with a product filter p50 ms | recall@30 vs exact | a theme new to the index: recall@30 | selective filter (~4 % pass) p50 / p99 ms | its recall@30 |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...scales.map((s) => `| ${s.vectors.toLocaleString('en')} | ${s.fillSeconds} | ${s.heapMb} | ${s.queryP50Ms} | ${s.queryP99Ms} | ${s.filteredP50Ms} | ${s.recallAt30} | ${s.newThemeRecallAt30} | ${s.selectiveP50Ms} / ${s.selectiveP99Ms} | ${s.selectiveRecallAt30} |`),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) printVectorIndex(await runVectorIndexBench());
