import { parentPort } from 'node:worker_threads';
import { assignToClusters } from './clustering';
import { recluster } from './recluster';
import { createEmbedder } from './embed';
import { loadWordVectors } from './model';
import type { SemanticsRequest, SemanticsResponse } from './thread-protocol';

// The semantics thread: embedding and clustering off the event loop that serves requests.
const embedder = createEmbedder(loadWordVectors());

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
