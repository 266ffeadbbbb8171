export {
  chunks, chunksOf, createIngestClient, idempotencyKeyOf, IngestApiError, REQUEST_LIMITS,
  type Batch, type BatchList, type Chunk, type DeletedRecord, type DeletedSource, type ErrorResponse, type IngestClient, type IngestClientOptions, type IngestRecord, type RecordError,
  type SubmissionResponse,
  type Company, type CompanyFields, type CompanyItem, type CompanyList, type Deleted, type ImportResult, type ItemError, type Person, type PersonFields, type PersonItem,
  type PersonList,
} from './client';
