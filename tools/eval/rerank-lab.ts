/**
 * find_sources' second stage (libs/sources/src/rerank.ts) measured in process, without the service, on
 * CLINC150 within one domain (../shared/data): each domain's clinc150-test texts as sources, its
 * clinc150-val texts as queries, precision@10. The first stage is the product's index of meaning
 * (VectorIndex) fused by fuseRankings with a BM25 ranking standing in for PostgreSQL's full text; the
 * second is the product's own rerankTop with the index's feedback scores and the word matcher, each
 * alone and together, and both with the domain's own vocabulary (latentTerms learned from its sources,
 * the query and each candidate folded in) as a third ranking. `npm run eval:evidence -- --within-domain` measures the real thing end to end;
 * this is where a change of the stage is tried first (seconds, not minutes).
 *
 *   npx tsx tools/eval/rerank-lab.ts      (RERANK_LAB_ALL=1: all domains in one workspace instead, every tenth val text a query)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createEmbedder, createWordMatcher, latentRank, latentScores, latentTerms, loadWordVectors, quantize, stem, tokenize, VectorIndex } from '@loupe/semantics';
import { fuseRankings, RERANK, rerankTop, SEMANTIC_MIN_SCORE, type Reranker } from '@loupe/sources';
import { precisionAtK, readLabelledCsv } from './metrics';

const dataDir = path.resolve(import.meta.dirname, '../../../shared/data');
const test = readLabelledCsv(await readFile(path.join(dataDir, 'clinc150-test.csv'), 'utf8'));
const val = readLabelledCsv(await readFile(path.join(dataDir, 'clinc150-val.csv'), 'utf8'));
const domainOf = new Map((await readFile(path.join(dataDir, 'clinc150-domains.csv'), 'utf8')).trim().split('\n').slice(1).map((l) => l.split(',') as [string, string]));
const model = loadWordVectors();
const embedder = createEmbedder(model);
const matcher = createWordMatcher(model);

/** Okapi BM25 (k1 1.2, b 0.75) over stemmed words: the lexical ranking's stand-in. */
function bm25(texts: string[]) {
  const docs = texts.map((t) => tokenize(t).map(stem));
  const df = new Map<string, number>();
  for (const d of docs) for (const w of new Set(d)) df.set(w, (df.get(w) ?? 0) + 1);
  const avg = docs.reduce((a, d) => a + d.length, 0) / docs.length;
  const idf = (w: string) => Math.log(1 + (docs.length - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
  return (query: string) => {
    const q = new Set(tokenize(query).map(stem));
    return docs
      .map((d, i) => {
        let score = 0;
        for (const w of q) {
          const f = d.filter((x) => x === w).length;
          if (f) score += (idf(w) * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.length) / avg));
        }
        return [i, score] as const;
      })
      .filter(([, s]) => s > 0)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .map(([i]) => i);
  };
}

const variants = ['first stage', 'feedback only', 'words only', 'both (the product)', 'both + own vocabulary'] as const;
const rows: string[] = [];
const sums = new Map<string, number[]>(variants.map((v) => [v, []]));
const together = process.env.RERANK_LAB_ALL === '1';
for (const domain of together ? ['all domains'] : [...new Set(domainOf.values())].sort()) {
  const corpus = together ? test : test.filter((r) => domainOf.get(r.label) === domain);
  const queries = together ? val.filter((_, i) => i % 10 === 0) : val.filter((r) => domainOf.get(r.label) === domain);
  const index = new VectorIndex(embedder.denseDims);
  index.upsert(corpus.map((r, i) => ({ id: String(i), vector: quantize(embedder.embed(r.text).slice(0, embedder.denseDims)), product: 'p', type: 'conversation', nature: 'evidence', at: 0, projects: [] })));
  const lexical = bm25(corpus.map((r) => r.text));
  const vocabulary = latentTerms(corpus.map((r) => r.text), latentRank(corpus.length));
  const results = new Map<string, string[][]>(variants.map((v) => [v, []]));
  for (const q of queries) {
    const vector = embedder.embed(q.text).slice(0, embedder.denseDims);
    const meaning = index.search(vector, 10 + 30, {}, SEMANTIC_MIN_SCORE).map((h) => ({ sourceId: h.id, position: null }));
    const words = lexical(q.text).map((i) => ({ sourceId: String(i), position: null }));
    const first = fuseRankings([words, meaning]);
    const texts = async (top: readonly { sourceId: string }[]) => top.map((r) => corpus[Number(r.sourceId)]!.text);
    // As the search thread answers the product's `rerank` (libs/semantics/src/thread-main.ts).
    const scorer = (parts: { feedback: boolean; words: boolean; latent?: boolean }): Reranker => async (query, candidates, again) => ({
      ...(parts.feedback ? { feedback: index.feedbackScores(vector, candidates.map((c) => c.id), RERANK.feedback, RERANK.beta) } : {}),
      ...(again ? {} : { words: parts.words ? matcher.scores(query, candidates.map((c) => c.text)) : candidates.map(() => 0) }),
      ...(parts.latent ? { latent: latentScores(vocabulary, query, candidates.map((c) => c.text), RERANK.feedback, RERANK.beta) } : {}),
    });
    const labels = (list: readonly { sourceId: string }[]) => list.slice(0, 10).map((r) => corpus[Number(r.sourceId)]!.label);
    results.get('first stage')!.push(labels(first));
    results.get('feedback only')!.push(labels(await rerankTop(first, q.text, texts, scorer({ feedback: true, words: false }))));
    results.get('words only')!.push(labels(await rerankTop(first, q.text, texts, scorer({ feedback: false, words: true }))));
    results.get('both (the product)')!.push(labels(await rerankTop(first, q.text, texts, scorer({ feedback: true, words: true }))));
    results.get('both + own vocabulary')!.push(labels(await rerankTop(first, q.text, texts, scorer({ feedback: true, words: true, latent: true }))));
  }
  const p = variants.map((v) => precisionAtK(queries.map((q) => q.label), results.get(v)!, 10));
  p.forEach((x, i) => sums.get(variants[i]!)!.push(x));
  rows.push(`| ${domain} | ${p.map((x) => x.toFixed(3)).join(' | ')} |`);
}
console.log(`find_sources' second stage in process, CLINC150 within one domain (${RERANK.depth} candidates, feedback from the first ${RERANK.feedback}, beta ${RERANK.beta}):`);
console.log(`| domain | ${variants.join(' | ')} |`);
console.log(`|---|${variants.map(() => '---').join('|')}|`);
for (const r of rows) console.log(r);
console.log(`| **mean** | ${variants.map((v) => `**${(sums.get(v)!.reduce((a, b) => a + b, 0) / sums.get(v)!.length).toFixed(3)}**`).join(' | ')} |`);
