export { buildSource, segmentsOfRecord, SourceBuildError } from './build';
export { insertSources, createSourceFromRecord, type CreatedSource } from './repository';
export { isPossibleSourceId, readSource, READ_LIMITS, MAX_SOURCE_ID_LENGTH, SourceReadError, type SourcePage, type SourceSegmentView } from './read';
export { MAX_SEGMENT_CHARS, splitText } from './text';
export type { Segment, SegmentKind, SourceDraft, SourceRecord } from './types';
export { fuseRankings, RRF_K, type FusedSource, type RankedHit } from './fuse';
export { RERANK, rerankTop, type Reranker, type RerankScores } from './rerank';
export { EMPTY_VOCABULARY, refreshVocabulary, VOCABULARY, vocabularyNeverLearned, vocabularyState, vocabularyToLearnAgain, type VocabularyLearned, type VocabularyState } from './vocabulary';
export {
  HIGHLIGHT, lexicalSearch, parseQuery, rankSources, refreshSearchDocuments, SEARCH_LIMITS, SearchQueryError, searchSources, TITLE_WEIGHT, withSearchSession,
  type FoundSource, type LexicalHit, type LexicalResult, type RankedSource, type SearchExcerpt, type SearchFilters, type SearchPage, type SearchRequest,
} from './search';
export { queryShape, type QueryShape } from './search-query';
export { createSemanticSearch, embedPendingSources, markOutdatedSources, pendingSemanticSources, SEMANTIC_MIN_SCORE, startSemanticRankings, WRITE_SOURCE_VECTORS, type SemanticResult, type SemanticSearch } from './semantic';
export { attachmentFile, attachmentsOfSource, type AttachmentFile, type SourceAttachment } from './attachments';
