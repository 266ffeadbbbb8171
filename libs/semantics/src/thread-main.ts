import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { assignToClusters } from './clustering';
import { recluster } from './recluster';
import { createEmbedder } from './embed';
import { loadWordVectors } from './model';
import type { SemanticsRequest, SemanticsResponse } from './thread-protocol';
import { VectorIndex } from './vector-index';

// The semantics thread: embedding and clustering off the event loop that serves requests.
// On Linux a priority set with pid 0 is this thread's alone: a long clustering yields the CPU to the
// event loop (and to PostgreSQL) on a busy machine. Elsewhere it may apply to the process, so only here.
if (process.platform === 'linux') {
  try {
    setPriority(0, 10);
  } catch {
    // not permitted: run at normal priority
  }
}
const embedder = createEmbedder(loadWordVectors());

/** Nearest-neighbour indexes held by this thread, by collection (a workspace's sources). */
const indexes = new Map<string, VectorIndex>();

const buffers = (...arrays: Array<{ buffer: ArrayBufferLike }>) => arrays.map((a) => a.buffer as ArrayBuffer);

function handle(request: SemanticsRequest): { result: unknown; transfer: ArrayBuffer[] } {
  switch (request.op) {
    case 'embed': {
      const vectors = new Float32Array(request.texts.length * embedder.dims);
      const keywords = request.texts.map((text, i) => {
        vectors.set(embedder.embed(text, request.themes?.[i]), i * embedder.dims);
        return embedder.keywords(text);
      });
      return { result: { vectors, dims: embedder.dims, denseDims: embedder.denseDims, keywords, version: embedder.version }, transfer: buffers(vectors) };
    }
    case 'recluster': {
      const { id: _id, op: _op, ...input } = request;
      const out = recluster(input);
      return { result: out, transfer: buffers(out.labels, out.sums, out.sizes, out.central, out.common.mean, out.common.direction) };
    }
    case 'assign': {
      const out = assignToClusters(request.vectors, request.dims, request.sums, request.sizes, request.threshold);
      return { result: out, transfer: buffers(out.clusters, out.sums, out.sizes) };
    }
    case 'index-upsert': {
      let index = indexes.get(request.collection);
      if (request.fill) indexes.set(request.collection, (index = new VectorIndex(embedder.denseDims)));
      // Pages past the first of a collection this thread does not hold (it was restarted): the caller fills it again.
      if (!index) return { result: { size: 0, bytes: 0, missing: true }, transfer: [] };
      if (request.removed?.length) index.remove(request.removed);
      index.upsert(request.items);
      return { result: { size: index.size, bytes: index.bytes, missing: false }, transfer: [] };
    }
    case 'index-search': {
      const index = indexes.get(request.collection);
      if (!index) return { result: { hits: [], loaded: false }, transfer: [] };
      // The dense part of the query's vector, as the indexed vectors are (raw, unit length).
      const query = embedder.embed(request.text).slice(0, embedder.denseDims);
      return { result: { hits: index.search(query, request.k, request.filter, request.minScore), loaded: true }, transfer: [] };
    }
    case 'index-drop':
      return { result: { dropped: indexes.delete(request.collection) }, transfer: [] };
  }
}

parentPort!.on('message', (request: SemanticsRequest) => {
  let response: SemanticsResponse;
  let transfer: ArrayBuffer[] = [];
  try {
    const out = handle(request);
    response = { id: request.id, ok: true, result: out.result };
    transfer = out.transfer;
  } catch (error) {
    response = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(response, transfer);
});
