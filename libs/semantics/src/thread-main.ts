import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { assignToClusters } from './clustering';
import { recluster } from './recluster';
import { createEmbedder, LEXICAL_DIMS } from './embed';
import { loadWordVectors } from './model';
import type { SemanticsRequest, SemanticsResponse } from './thread-protocol';
import { VectorIndex } from './vector-index';
import { createRemoteEmbeddings, remoteVersionOf, type RemoteEmbeddingsOptions } from './remote';
import { normalize } from './vectors';
import { foldIn, latentScoresOfFolded, latentTerms, type LatentTerms } from './latent';
import { fusedOrder } from './fused-order';
import { decodeLatentTerms, encodeLatentTerms } from './latent-codec';
import { createWordMatcher } from './word-match';

// The semantics thread: embedding and clustering off the event loop that serves requests.
// On Linux a priority set with pid 0 is this thread's alone: a long clustering yields the CPU to the
// event loop (and to PostgreSQL) on a busy machine. Elsewhere it may apply to the process, so only here.
// The thread that answers searches keeps the normal priority (it is part of answering a request).
if (process.platform === 'linux' && (workerData as { background?: boolean } | null)?.background !== false) {
  try {
    setPriority(0, 10);
  } catch {
    // not permitted: run at normal priority
  }
}
const wordVectors = loadWordVectors();
const embedder = createEmbedder(wordVectors);
const wordMatcher = createWordMatcher(wordVectors);
/** The word vectors' ranking tells a mistyped word and a frequent one (near-duplicates in a re-clustering). */
const vocabulary = { rankOf: (word: string) => wordVectors.rowOf.get(word) };
const remoteOptions = (workerData as { embeddings?: RemoteEmbeddingsOptions } | null)?.embeddings;
/** With EMBEDDINGS_URL: the dense part comes from the provider; the lexical part and keywords stay the built-in ones. */
const remote = remoteOptions ? createRemoteEmbeddings(remoteOptions) : undefined;
const version = remote ? remoteVersionOf(remoteOptions!.model) : embedder.version;
/** Time limit of embedding a search's query with the provider (asked once: the search answers by words without it). */
const QUERY_TIMEOUT_MS = 5_000;
/** Weight of a theme against the text (as the built-in embedder weighs it). */
const THEME_WEIGHT = 0.5;

/**
 * Texts' vectors (dense part, then the built-in lexical part). With a provider the dense part is its
 * vector (unit length; a theme blended in as the built-in embedder does), of the provider's dimensions.
 */
async function embedTexts(texts: string[], themes: Array<string | null> | undefined): Promise<{ vectors: Float32Array; dims: number; denseDims: number }> {
  if (!remote) {
    const vectors = new Float32Array(texts.length * embedder.dims);
    texts.forEach((text, i) => vectors.set(embedder.embed(text, themes?.[i]), i * embedder.dims));
    return { vectors, dims: embedder.dims, denseDims: embedder.denseDims };
  }
  const themed = texts.map((_, i) => themes?.[i]?.trim() || '');
  const dense = await remote.embed([...texts, ...themed.filter(Boolean)]);
  const denseDims = remote.dims!;
  const dims = denseDims + LEXICAL_DIMS;
  const vectors = new Float32Array(texts.length * dims);
  let t = texts.length;
  texts.forEach((text, i) => {
    const v = vectors.subarray(i * dims, (i + 1) * dims);
    v.set(dense[i]!, 0);
    if (themed[i]) {
      const theme = dense[t++]!;
      const part = v.subarray(0, denseDims);
      for (let d = 0; d < denseDims; d++) part[d] = (1 - THEME_WEIGHT) * part[d]! + THEME_WEIGHT * theme[d]!;
      normalize(part);
    }
    v.set(embedder.embed(text, themes?.[i]).subarray(embedder.denseDims), denseDims);
  });
  return { vectors, dims, denseDims };
}

/**
 * The provider's answer for the last queries searched (a vector, or why there is none), each kept for
 * the second stage of its search (`rerank`), which takes it: a search asks the provider once, a failing
 * provider is not asked twice, and a later search asks again.
 */
const searchedQueries = new Map<string, Float32Array | string>();
const SEARCHED_QUERIES = 64;

/** The dense part of a query's vector, as the indexed vectors are (raw, unit length), or why there is none. */
async function queryVector(text: string): Promise<Float32Array | string> {
  if (!remote) return embedder.embed(text).slice(0, embedder.denseDims);
  let answer: Float32Array | string;
  try {
    answer = (await remote.embed([text], { timeoutMs: QUERY_TIMEOUT_MS, retries: 0 }))[0]!;
  } catch (error) {
    answer = error instanceof Error ? error.message : String(error);
  }
  searchedQueries.set(text, answer);
  if (searchedQueries.size > SEARCHED_QUERIES) searchedQueries.delete(searchedQueries.keys().next().value!);
  return answer;
}

/** The query's vector for the second stage of its search: the built-in one, or the provider's answer to its first stage. */
function searchedQueryVector(text: string): Float32Array | string {
  if (!remote) return embedder.embed(text).slice(0, embedder.denseDims);
  const searched = searchedQueries.get(text) ?? 'the query was not searched by meaning';
  searchedQueries.delete(text);
  return searched;
}

/** Nearest-neighbour indexes held by this thread, by collection (a workspace's sources). */
const indexes = new Map<string, VectorIndex>();
/** The collections' own vocabularies (libs/sources/src/vocabulary.ts), for the second stage of their searches. */
const vocabularies = new Map<string, LatentTerms>();

const buffers = (...arrays: Array<{ buffer: ArrayBufferLike }>) => arrays.map((a) => a.buffer as ArrayBuffer);

async function handle(request: SemanticsRequest): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  switch (request.op) {
    case 'embed': {
      // No texts: the embedding's description (a provider is asked once for its dimensions).
      const { vectors, dims, denseDims } = await embedTexts(request.texts.length || !remote || remote.dims !== undefined ? request.texts : [''], request.themes);
      const keywords = request.texts.map((text) => embedder.keywords(text));
      const out = request.texts.length ? vectors : new Float32Array(0);
      return { result: { vectors: out, dims, denseDims, keywords, version }, transfer: buffers(out) };
    }
    case 'version':
      return { result: { version }, transfer: [] };
    case 'recluster': {
      const { id: _id, op: _op, ...input } = request;
      const out = recluster(input, vocabulary);
      return { result: out, transfer: buffers(out.labels, out.sums, out.sizes, out.central, out.common.mean, out.common.direction) };
    }
    case 'assign': {
      const out = assignToClusters(request.vectors, request.dims, request.sums, request.sizes, request.threshold);
      return { result: out, transfer: buffers(out.clusters, out.sums, out.sizes) };
    }
    case 'index-upsert': {
      let index = indexes.get(request.collection);
      // The index takes the dimensions of the vectors it is given (the provider's, or the built-in model's).
      const itemDims = request.items.length ? request.items[0]!.vector.byteLength - 4 : (remote?.dims ?? embedder.denseDims);
      if (request.fill || (index && index.size === 0 && index.dims !== itemDims)) indexes.set(request.collection, (index = new VectorIndex(itemDims)));
      // Pages past the first of a collection this thread does not hold (it was restarted): the caller fills it again.
      if (!index) return { result: { size: 0, bytes: 0, missing: true }, transfer: [] };
      if (request.removed?.length) index.remove(request.removed);
      index.upsert(request.items);
      return { result: { size: index.size, bytes: index.bytes, missing: false }, transfer: [] };
    }
    case 'index-search': {
      if (!indexes.has(request.collection)) return { result: { hits: [], loaded: false }, transfer: [] };
      const query = await queryVector(request.text);
      // The index as it is once the query is embedded (a fill may have replaced it meanwhile).
      const index = indexes.get(request.collection);
      if (!index) return { result: { hits: [], loaded: false }, transfer: [] };
      if (typeof query === 'string') return { result: { hits: [], loaded: true, unavailable: query }, transfer: [] };
      // A query of other dimensions than the index's (the provider changed model) finds nothing.
      if (query.length !== index.dims) return { result: { hits: [], loaded: true }, transfer: [] };
      return { result: { hits: index.search(query, request.k, request.filter, request.minScore), loaded: true }, transfer: [] };
    }
    case 'rerank': {
      const { ids, texts } = request;
      const words = request.words ? wordMatcher.scores(request.text, texts) : undefined;
      const vocabulary = vocabularies.get(request.collection);
      const folded = vocabulary ? texts.map((text) => foldIn(vocabulary, text)) : undefined;
      const index = indexes.get(request.collection);
      const query = index ? searchedQueryVector(request.text) : undefined;
      const byMeaning = index && typeof query === 'object' && query.length === index.dims ? query : undefined;
      // The rankings that depend on the order (their feedback is its first results), in that order.
      const inOrder = (order: readonly number[]) => ({
        ...(byMeaning ? { feedback: index!.feedbackScores(byMeaning, order.map((i) => ids[i]!), request.feedback, request.beta) } : {}),
        ...(folded ? { latent: latentScoresOfFolded(vocabulary!, request.text, order.map((i) => folded[i]!), request.feedback, request.beta) } : {}),
      });
      const first = inOrder(ids.map((_, i) => i));
      let again: { order: number[]; feedback?: number[]; latent?: number[] } | undefined;
      if (request.twice && words) {
        const order = fusedOrder({ ...first, words }, ids.length, request.twice.weights, request.twice.k);
        again = { order, ...inOrder(order) };
      }
      return { result: { ...first, ...(words ? { words } : {}), ...(again ? { again } : {}), vocabulary: vocabulary !== undefined }, transfer: [] };
    }
    case 'vocabulary-learn': {
      const vocabulary = latentTerms(request.texts, request.rank);
      const model = encodeLatentTerms(vocabulary);
      return { result: { model, terms: vocabulary.index.size }, transfer: buffers(model) };
    }
    case 'vocabulary-set': {
      if (!request.model) {
        vocabularies.delete(request.collection);
        return { result: { terms: 0 }, transfer: [] };
      }
      const vocabulary = decodeLatentTerms(request.model);
      vocabularies.set(request.collection, vocabulary);
      return { result: { terms: vocabulary.index.size }, transfer: [] };
    }
    case 'index-drop':
      return { result: { dropped: indexes.delete(request.collection) }, transfer: [] };
  }
}

parentPort!.on('message', (request: SemanticsRequest) => void answer(request));

async function answer(request: SemanticsRequest) {
  let response: SemanticsResponse;
  let transfer: ArrayBuffer[] = [];
  try {
    const out = await handle(request);
    response = { id: request.id, ok: true, result: out.result };
    transfer = out.transfer;
  } catch (error) {
    response = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response, transfer);
}
