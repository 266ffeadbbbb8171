import { readModelName } from './model';
import { builtinVersionOf } from './embed';
import { remoteVersionOf } from './remote';
export { loadWordVectors, readModelName, ModelMissingError, DEFAULT_MODEL_FILE, type WordVectors } from './model';
export { createWordMatcher, type WordMatcher } from './word-match';
export { createEmbedder, builtinVersionOf, tokenize, stem, LEXICAL_DIMS, type Embedder } from './embed';
export { dot, normalize, isZero, vectorToBytes, bytesToVector } from './vectors';
export { commonComponent, withoutCommon, COMMON_DIRECTIONS, DENSE_SHARE, type CommonComponent } from './common';
export { clusterVectors, assignToClusters, nearestCluster, EXACT_LIMIT, CELL_LIMIT, SMOOTH_LIMIT, type Clusters, type Assignment } from './clustering';
export { startSemanticsThread, type EmbeddingInfo, type SemanticsThread } from './thread';
export { latentVectors, latentRank, latentTerms, latentScores, foldIn, type LatentTerms } from './latent';
export { fusedOrder, rankOrder, type StageScores, type StageWeights } from './fused-order';
export { encodeLatentTerms, decodeLatentTerms } from './latent-codec';
export { recluster, classTerms, LATENT_SHARE, type ReclusterInput, type ReclusterOutput } from './recluster';
export { nearDuplicates, type Vocabulary } from './near-duplicates';
export { VectorIndex, quantize, type IndexItem, type IndexFilter, type IndexHit } from './vector-index';
export { createRemoteEmbeddings, embeddingsEndpoint, retryAfterMs, remoteVersionOf, EmbeddingsError, REMOTE_DEFAULTS, type RemoteEmbeddings, type RemoteEmbeddingsOptions } from './remote';

/** The version of the embedding configured (EMBEDDINGS_MODEL, or the built-in word vectors), as stored beside each vector. */
export function configuredEmbeddingVersion(embeddings: { model: string } | undefined): string {
  return embeddings ? remoteVersionOf(embeddings.model) : builtinVersionOf(readModelName());
}
