export { loadWordVectors, ModelMissingError, DEFAULT_MODEL_FILE, type WordVectors } from './model';
export { createEmbedder, tokenize, LEXICAL_DIMS, type Embedder } from './embed';
export { dot, normalize, isZero, vectorToBytes, bytesToVector } from './vectors';
export { commonComponent, withoutCommon, COMMON_DIRECTIONS, DENSE_SHARE, type CommonComponent } from './common';
export { clusterVectors, assignToClusters, nearestCluster, EXACT_LIMIT, CELL_LIMIT, type Clusters, type Assignment } from './clustering';
export { startSemanticsThread, type EmbeddingInfo, type SemanticsThread } from './thread';
export { recluster, classTerms, type ReclusterInput, type ReclusterOutput } from './recluster';
export { VectorIndex, quantize, type IndexItem, type IndexFilter, type IndexHit } from './vector-index';
