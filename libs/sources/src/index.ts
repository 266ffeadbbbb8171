export { buildSource, segmentsOfRecord, SourceBuildError } from './build';
export { insertSources, createSourceFromRecord, type CreatedSource } from './repository';
export { readSource, READ_LIMITS, SourceReadError, type SourcePage, type SourceSegmentView } from './read';
export { MAX_SEGMENT_CHARS, splitText } from './text';
export type { Segment, SegmentKind, SourceDraft, SourceRecord } from './types';
