/**
 * Opportunities measured in process, without the service: the CLINC150 texts (../shared/data) embedded as
 * the worker embeds a signal, then one full re-clustering as libs/evidence runs it (the same thresholds,
 * neighbours and texts, in content order): by the neighbour graph's communities, as the product groups,
 * and beside it by average link kept where it lasts (the grouping before, docs/adr/0022).
 * Prints opportunities per true intent / NMI / ARI per set, and the seconds each clustering took. `npm run eval:evidence -- --within-domain`
 * measures the real thing end to end (placement between re-clusterings, ids, the order signals arrive in);
 * this is where a change of the grouping is tried first (seconds, not minutes).
 *
 *   npx tsx tools/eval/cluster-lab.ts            (CLUSTER_LAB_SETS=each:20,all:10,all:30,banking:100)
 *
 * A set is `scope:per intent`: `all` (150 intents), a domain (`banking`, or several joined by +), or `each`
 * (every domain alone, and their mean). Beyond 50 per intent, edited copies as in eval:evidence.
 *
 * CLUSTER_LAB_ENCODER=1: the dense part from the sentence encoder of `npm run embeddings:serve`, loaded in
 * process, as the semantics thread joins a provider's vectors with the built-in lexical part (vectors kept
 * in the system's temporary directory, so a second run does not encode again: 15,000 texts take ~3 minutes).
 * CLUSTER_LAB_DUPLICATES=apart: near-duplicates clustered as separate texts (no vocabulary), as before.
 * CLUSTER_LAB_ORDER=<word>: another order to cluster in (the hash of the word and the text), to see how much
 * the order moves the figures.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OPPORTUNITY_NEIGHBOURS, OPPORTUNITY_STABLE_FLOOR, OPPORTUNITY_THRESHOLD, signalText } from '@loupe/evidence';
import { createEmbedder, loadWordVectors, nearDuplicates, normalize, recluster, type Vocabulary } from '@loupe/semantics';
import { loadUseLite } from '../src/embeddings-server/encoder';
import { sampleWithCopies, type Labelled } from './clinc-sets';
import { ari, nmi, readLabelledCsv } from './metrics';

const dataDir = path.resolve(import.meta.dirname, '../../../shared/data');
const sets = (process.env.CLUSTER_LAB_SETS ?? 'each:20,all:10,all:30,banking:100').split(',');
const pool = [
  ...readLabelledCsv(await readFile(path.join(dataDir, 'clinc150-test.csv'), 'utf8')),
  ...readLabelledCsv(await readFile(path.join(dataDir, 'clinc150-val.csv'), 'utf8')),
];
const domainOf = new Map((await readFile(path.join(dataDir, 'clinc150-domains.csv'), 'utf8')).trim().split('\n').slice(1).map((l) => l.split(',') as [string, string]));
const wordVectors = loadWordVectors();
const embedder = createEmbedder(wordVectors);
const vocabulary: Vocabulary | undefined = process.env.CLUSTER_LAB_DUPLICATES === 'apart' ? undefined : { rankOf: (word) => wordVectors.rowOf.get(word) };
const encoder = process.env.CLUSTER_LAB_ENCODER === '1' ? await loadUseLite() : undefined;
const encodedFile = path.join(tmpdir(), `loupe-cluster-lab-${encoder?.model}.json`);
const encodedTexts: Record<string, number[]> = encoder && existsSync(encodedFile) ? JSON.parse(readFileSync(encodedFile, 'utf8')) : {};

/** The texts' vectors: the built-in ones, or the encoder's (unit length) joined with the built-in lexical part. */
async function vectorsOf(texts: string[]): Promise<{ vectors: Float32Array; dims: number; denseDims: number }> {
  if (!encoder) {
    const vectors = new Float32Array(texts.length * embedder.dims);
    texts.forEach((t, i) => vectors.set(embedder.embed(t), i * embedder.dims));
    return { vectors, dims: embedder.dims, denseDims: embedder.denseDims };
  }
  const missing = [...new Set(texts.filter((t) => !encodedTexts[t]))];
  for (let at = 0; at < missing.length; at += 64) {
    const batch = missing.slice(at, at + 64);
    (await encoder.embed(batch)).forEach((v, i) => (encodedTexts[batch[i]!] = v));
  }
  if (missing.length) writeFileSync(encodedFile, JSON.stringify(encodedTexts));
  const dims = encoder.dims + embedder.dims - embedder.denseDims;
  const vectors = new Float32Array(texts.length * dims);
  texts.forEach((t, i) => {
    vectors.set(normalize(Float32Array.from(encodedTexts[t]!)), i * dims);
    vectors.set(embedder.embed(t).subarray(embedder.denseDims), i * dims + encoder.dims);
  });
  return { vectors, dims, denseDims: encoder.dims };
}

const orderSalt = process.env.CLUSTER_LAB_ORDER ?? '';

type Figures = [perIntent: number, nmi: number, ari: number, seconds: number];

/** Texts that join an earlier one as its near-duplicate (in the set's order), how many of another intent, and how many edited copies join one. */
function duplicatesIn(rows: Labelled[], texts: string[], copies: Set<number>): string {
  if (!vocabulary) return '';
  const first = nearDuplicates(texts, vocabulary);
  let joined = 0;
  let otherIntent = 0;
  let copiesJoined = 0;
  first.forEach((f, i) => {
    if (f === i) return;
    joined++;
    if (rows[f]!.label !== rows[i]!.label) otherIntent++;
    if (copies.has(i) || copies.has(f)) copiesJoined++;
  });
  return `${joined} join another (${otherIntent} of another intent${copies.size ? `; ${copiesJoined} of the ${copies.size} edited copies` : ''})`;
}

/** One full re-clustering of the rows as signals (title: the text's first 200 characters; content: the text), by communities as the product groups and by average link as it did before. */
async function measure(rows: Labelled[], copies: Set<number>): Promise<{ averageLink: Figures; communities: Figures; duplicates: string }> {
  const texts = rows.map((r) => signalText({ title: r.text.slice(0, 200), content: r.text }));
  const { vectors, dims, denseDims } = await vectorsOf(texts);
  const input = {
    dims, denseDims, keywords: texts.map((t) => embedder.keywords(t)), texts: texts.map((t) => `${t}\n`),
    orderKeys: rows.map((r, i) => `${createHash('md5').update(`${orderSalt}${r.text}`).digest('hex')}\u0000${i}`),
    threshold: OPPORTUNITY_THRESHOLD, neighbours: OPPORTUNITY_NEIGHBOURS, stableFloor: OPPORTUNITY_STABLE_FLOOR,
  };
  const labels = rows.map((r) => r.label);
  const intents = new Set(labels).size;
  const figures = (communities: boolean): Figures => {
    const started = performance.now();
    const out = recluster({ ...input, vectors: Float32Array.from(vectors), communities }, vocabulary);
    const seconds = (performance.now() - started) / 1000;
    const clusters = [...out.labels].map(String);
    return [out.sizes.length / intents, nmi(labels, clusters), ari(labels, clusters), seconds];
  };
  return { averageLink: figures(false), communities: figures(true), duplicates: duplicatesIn(rows, texts, copies) };
}

const show = (f: Figures) => `${f[0].toFixed(2)} / ${f[1].toFixed(3)} / ${f[2].toFixed(3)} (${f[3].toFixed(1)} s)`;
const mean = (list: Figures[]): Figures => [0, 1, 2, 3].map((k) => list.reduce((a, f) => a + f[k]!, 0) / list.length) as Figures;

console.log(`Opportunities in process (CLINC150, ${encoder ? encoder.model : 'built-in vectors'}${vocabulary ? '' : ', near-duplicates apart'}; per true intent / NMI / ARI (seconds)), average link kept where it lasts (floor ${OPPORTUNITY_STABLE_FLOOR}) → the neighbour graph's communities:`);
console.log('| set | signals | average link | communities | near-duplicates |');
console.log('|---|---|---|---|---|');
for (const set of sets) {
  const [scope, per] = set.split(':') as [string, string];
  const scopes = scope === 'each' ? [...new Set(domainOf.values())].sort() : [scope];
  const results: Array<{ averageLink: Figures; communities: Figures }> = [];
  for (const one of scopes) {
    const domains = one.split('+');
    const { rows, copies } = sampleWithCopies(one === 'all' ? pool : pool.filter((r) => domains.includes(domainOf.get(r.label)!)), Number(per));
    // The edited copies are the last rows.
    const r = await measure(rows, new Set(Array.from({ length: copies }, (_, k) => rows.length - copies + k)));
    results.push(r);
    console.log(`| ${one} × ${per} | ${rows.length} | ${show(r.averageLink)} | ${show(r.communities)} | ${r.duplicates} |`);
  }
  if (results.length > 1) console.log(`| **mean of ${results.length}** × ${per} | | ${show(mean(results.map((r) => r.averageLink)))} | ${show(mean(results.map((r) => r.communities)))} | |`);
}
