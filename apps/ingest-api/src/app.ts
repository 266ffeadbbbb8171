import { createIdempotencyStore, createRateLimiter, type Clock, type IdempotencyStore, type RateLimiter } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import { openApiDocument, recordJsonSchema } from '@loupe/records';
import { Router } from 'express';
import type pg from 'pg';
import { apiKeyAuth, requirePermission } from './auth';
import { getHandler, listHandler } from './batches';
import { submitHandler } from './submit';

export interface IngestAppDeps {
  pool: pg.Pool;
  boss: Boss;
  clock: Clock;
  servicePrefix: string;
  /** The public base URL, for the published documents. */
  baseUrl: () => string;
  rateLimiter?: RateLimiter;
  idempotency?: IdempotencyStore;
}

/** Spec: 10 requests per second per API key. */
export const INGEST_RATE_LIMIT = { limit: 10, windowMs: 1000 };

/** The record-ingestion API: three endpoints under /api/v1/ingest plus its published schemas. */
export function createIngestApp(deps: IngestAppDeps): Router {
  const limiter = deps.rateLimiter ?? createRateLimiter(deps.pool, { ...INGEST_RATE_LIMIT, clock: deps.clock });
  const idempotency = deps.idempotency ?? createIdempotencyStore(deps.pool, deps.clock);
  const auth = apiKeyAuth(deps.pool, deps.servicePrefix, limiter);
  const router = Router();
  router.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument(deps.baseUrl()));
  });
  router.get('/api/v1/schemas/record.json', (_req, res) => {
    res.type('application/schema+json').send(JSON.stringify(recordJsonSchema(deps.baseUrl())));
  });
  router.post('/api/v1/ingest', auth, requirePermission('api:write'), submitHandler({ ...deps, idempotency }));
  router.get('/api/v1/ingest/batches', auth, requirePermission('api:read', 'api:write'), listHandler(deps.pool));
  router.get('/api/v1/ingest/batches/:batchId', auth, requirePermission('api:read', 'api:write'), getHandler(deps.pool));
  return router;
}
