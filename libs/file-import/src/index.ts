export { mappingSchema, mappingProblems, recordOfRow, cellOf, storable, type Mapping, type Row, type RecordDefaults, type Mapped } from './mapping';
export { eventAtOf, isEventAtFormat } from './event-at';
export {
  readRows, formatOf, formatOfHead, csvDelimiterOf, columnsOf, whereText, FileReadError, MAX_CSV_ROW_BYTES,
  type FileRow, type FileFormat, type FileSource, type ReadOptions,
} from './read-rows';
export { mapFileRow, previewFile, recordProblems, PREVIEW_ROWS, RECORDS_PER_REQUEST, type MappedRow } from './map-rows';
export { guessForm, mappingOfForm, formOfMapping, keyOfColumn, DATA_AS, PERSON_ROLES, type MappingForm } from './form';
export {
  listMappings, findMapping, saveMapping, deleteMapping, mappingNameProblems, MappingError, MAX_SAVED_MAPPINGS, MAX_MAPPING_NAME, MAX_NAMED_REFUSALS,
  createFileImport, getFileImport, listFileImports, setImportMapping, startFileImport, importStorageKey, discardDraft, purgeStaleDrafts, DRAFT_TTL_MS,
  type SavedMapping, type FileImport, type ImportStatus, type Refusal,
} from './store';
export { runFileImport, type ImportRunDeps, type ImportRunOutcome } from './run';
