export { createIngestApp, INGEST_RATE_LIMIT, type IngestAppDeps } from './app';
