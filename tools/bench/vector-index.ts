/**
 * The in-memory semantic index of find_sources (libs/semantics VectorIndex) at 10,000 / 100,000 /
 * 1,000,000 sources: time to fill it, memory, and the time of one query (an exact scan), without and
 * with a product filter. The vectors are real (CLINC150 texts through the embedder), repeated with
 * noise to reach the count. This is where the in-process index stops paying and pgvector takes over
 * (README, "Search": scaling path).
 *
 *   npm run bench:vector-index      (BENCH_VECTORS=10000,100000,1000000)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEmbedder, loadWordVectors, quantize, VectorIndex, type IndexItem } from '@loupe/semantics';
import { readLabelledCsv } from '../eval/metrics';
import { machine, percentile, round } from './lib';

export interface VectorIndexScale {
  vectors: number;
  fillSeconds: number;
  heapMb: number;
  queryP50Ms: number;
  queryP99Ms: number;
  filteredP50Ms: number;
  /** Share of the exact scan's 30 best the answered ones hold (1 below the prefilter's size). */
  recallAt30: number;
}

export async function runVectorIndexBench(): Promise<{ machine: string; scales: VectorIndexScale[] }> {
  const dir = path.resolve(import.meta.dirname, '../../../shared/data');
  const texts = [
    ...readLabelledCsv(await readFile(path.join(dir, 'clinc150-test.csv'), 'utf8')),
    ...readLabelledCsv(await readFile(path.join(dir, 'clinc150-val.csv'), 'utf8')),
  ].map((r) => r.text);
  const embedder = createEmbedder(loadWordVectors());
  const dense = texts.map((t) => embedder.embed(t).slice(0, embedder.denseDims));
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * 0.2;
  const scales: VectorIndexScale[] = [];
  for (const n of (process.env.BENCH_VECTORS ?? '10000,100000,1000000').split(',').map(Number)) {
    globalThis.gc?.();
    const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const index = new VectorIndex(embedder.denseDims);
    let t = performance.now();
    for (let at = 0; at < n; at += 2_000) {
      const page: IndexItem[] = [];
      for (let i = at; i < Math.min(n, at + 2_000); i++) {
        const v = dense[i % dense.length]!.map((x) => x + noise());
        page.push({ id: `src_${i.toString(36).padStart(10, '0')}`, vector: quantize(v), product: `prod_${i % 4}`, type: 'email', nature: 'evidence', at: i, projects: [] });
      }
      index.upsert(page);
    }
    const fillSeconds = round((performance.now() - t) / 1000, 1);
    globalThis.gc?.();
    const heapMb = round((process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore) / 2 ** 20);
    const times: number[] = [];
    const filtered: number[] = [];
    let kept = 0;
    let wanted = 0;
    for (let q = 0; q < 60; q++) {
      const query = embedder.embed(texts[(q * 97) % texts.length]!).slice(0, embedder.denseDims);
      t = performance.now();
      const hits = index.search(query, 30, {}, 0.3);
      times.push(performance.now() - t);
      const exact = new Set(index.search(query, 30, {}, 0.3, true).map((h) => h.id));
      kept += hits.filter((h) => exact.has(h.id)).length;
      wanted += exact.size;
      t = performance.now();
      index.search(query, 30, { product: 'prod_1' }, 0.3);
      filtered.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    filtered.sort((a, b) => a - b);
    scales.push({ vectors: n, fillSeconds, heapMb, queryP50Ms: round(percentile(times, 50), 1), queryP99Ms: round(percentile(times, 99), 1), filteredP50Ms: round(percentile(filtered, 50), 1), recallAt30: round(wanted ? kept / wanted : 1, 3) });
    console.error(`bench:vector-index ${n} done`);
  }
  return { machine: machine(), scales };
}

export function printVectorIndex(f: { machine: string; scales: VectorIndexScale[] }): void {
  console.log(`\nSemantic index, one thread (${f.machine})`);
  console.log('| sources | fill s | memory MB | query p50 ms | query p99 ms | with a product filter p50 ms | recall@30 vs exact |');
  console.log('|---|---|---|---|---|---|---|');
  for (const s of f.scales) console.log(`| ${s.vectors.toLocaleString('en')} | ${s.fillSeconds} | ${s.heapMb} | ${s.queryP50Ms} | ${s.queryP99Ms} | ${s.filteredP50Ms} | ${s.recallAt30} |`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) printVectorIndex(await runVectorIndexBench());
