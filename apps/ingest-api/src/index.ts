export { createIngestApp, INGEST_RATE_LIMIT, type IngestAppDeps } from './app';
export { exportLines, decodeCursor as decodeExportCursor, type ExportPosition } from './export/lines';
