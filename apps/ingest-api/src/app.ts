import { createRequire } from 'node:module';
import path from 'node:path';
import { screenErasedPeople } from '@loupe/erasure';
import { createIdempotencyStore, createRateLimiter, type Clock, type IdempotencyStore, type Logger, type RateLimiter } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import { openApiDocument, recordJsonSchema } from '@loupe/records';
import express, { Router } from 'express';
import type { Storage } from '@loupe/storage';
import type pg from 'pg';
import { attachmentDownloadHandler } from './attachments/route';
import { apiKeyAuth, requireCreatorRole, requirePermission } from './auth';
import { getHandler, listHandler } from './batches';
import {
  batchHandler as directoryBatch, COMPANY_KIND, deleteHandler as directoryDelete, getHandler as directoryGet, listHandler as directoryList, PERSON_KIND,
  putHandler as directoryPut, type DirectoryKind,
} from './companies/route';
import { connectionHandlers } from './connections/route';
import { deleteHandler } from './deletion/route';
import { emailForwardingHandler } from './email-forwarding/route';
import {
  confirmErasureHandler, createErasureHandler, getErasureHandler, liftSuppressionHandler, listErasuresHandler, listSuppressionsHandler,
} from './erasure/route';
import { exportHandler } from './export/route';
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
  /** Where attachment files are stored: deleting a record deletes its files. */
  storage: Storage;
  log?: Logger;
  /** Connections to vendors: CONNECTIONS_KEY and FETCH_ALLOW_LOOPBACK; the development key and no loopback when absent. */
  connections?: { key: string | undefined; allowLoopback: boolean };
  /** The inbound mail domain when this service receives mail (issue 45's forwarding addresses); off when absent. */
  inboundMailDomain?: string | undefined;
}

const docsDir = path.resolve(import.meta.dirname, '../docs');
const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Spec: 10 requests per second per API key. */
export const INGEST_RATE_LIMIT = { limit: 10, windowMs: 1000 };

/** The record-ingestion API: three endpoints under /api/v1/ingest, the workspace's export, deleting sources and records, and its published schemas. */
export function createIngestApp(deps: IngestAppDeps): Router {
  const limiter = deps.rateLimiter ?? createRateLimiter(deps.pool, { ...INGEST_RATE_LIMIT, clock: deps.clock });
  const idempotency = deps.idempotency ?? createIdempotencyStore(deps.pool, deps.clock);
  const auth = apiKeyAuth(deps.pool, deps.servicePrefix, limiter);
  const router = Router();
  router.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument(deps.baseUrl()));
  });
  // The API reference: Swagger UI from npm, served from our host (no CDN), over the document above.
  router.get('/docs', (_req, res) => res.sendFile(path.join(docsDir, 'index.html')));
  router.use('/docs/assets', express.static(swaggerUiDir, { maxAge: '1d', index: false, fallthrough: false }));
  router.use('/docs', express.static(docsDir, { maxAge: '1h', index: false }));
  router.get('/api/v1/schemas/record.json', (_req, res) => {
    res.type('application/schema+json').send(JSON.stringify(recordJsonSchema(deps.baseUrl())));
  });
  router.post('/api/v1/ingest', auth, requirePermission('api:write'), submitHandler({ ...deps, idempotency }));
  router.get('/api/v1/ingest/batches', auth, requirePermission('api:read', 'api:write'), listHandler(deps.pool));
  router.get('/api/v1/ingest/batches/:batchId', auth, requirePermission('api:read', 'api:write'), getHandler(deps.pool));
  // Everything the workspace holds: a key that can only send records cannot take it away.
  router.get('/api/v1/export', auth, requirePermission('api:read'), exportHandler(deps.pool));
  // Erasing a person (libs/erasure): asking (a dry run too) and confirming a dry run need api:write and a key made by an owner, following it either;
  // suppressions are lifted with api:write by an owner's key. The roles are the account pages' (ROLE_RULES).
  router.post('/api/v1/erasures', auth, requirePermission('api:write'), requireCreatorRole('erasePerson'), createErasureHandler(deps));
  router.post('/api/v1/erasures/:erasureId/confirm', auth, requirePermission('api:write'), requireCreatorRole('erasePerson'), confirmErasureHandler(deps));
  router.get('/api/v1/erasures', auth, requirePermission('api:read', 'api:write'), listErasuresHandler(deps.pool));
  router.get('/api/v1/erasures/:erasureId', auth, requirePermission('api:read', 'api:write'), getErasureHandler(deps.pool));
  router.get('/api/v1/suppressions', auth, requirePermission('api:read', 'api:write'), listSuppressionsHandler(deps.pool));
  router.delete('/api/v1/suppressions/:suppressionId', auth, requirePermission('api:write'), requireCreatorRole('liftSuppression'), liftSuppressionHandler(deps));
  // Deleting evidence (libs/lifecycle): a source and its record go together, so both need an owner's or an admin's key.
  router.delete('/api/v1/sources/:sourceId', auth, requirePermission('api:write'), requireCreatorRole('deleteSource'), deleteHandler(deps, 'source'));
  router.delete('/api/v1/records/:recordId', auth, requirePermission('api:write'), requireCreatorRole('deleteSource'), deleteHandler(deps, 'record'));
  // The files the worker downloaded, from any instance: reading what customers sent needs api:read, as the export does.
  router.get('/api/v1/records/:recordId/attachments/:position', auth, requirePermission('api:read'), attachmentDownloadHandler(deps));
  // Companies and people (libs/companies): upserted by the team's own id, one or a batch; a literal colon in a path is escaped.
  // A person erased from the workspace is refused as their records are (libs/erasure's suppressions).
  const directoryDeps = { ...deps, screenPeople: screenErasedPeople };
  const directory = <I, V>(kind: DirectoryKind<I, V>) => {
    router.put(`${kind.path}/:externalId`, auth, requirePermission('api:write'), directoryPut(directoryDeps, kind));
    router.post(`${kind.path}\\:batch`, auth, requirePermission('api:write'), directoryBatch(directoryDeps, kind));
    router.get(kind.path, auth, requirePermission('api:read', 'api:write'), directoryList(directoryDeps, kind));
    router.get(`${kind.path}/:externalId`, auth, requirePermission('api:read', 'api:write'), directoryGet(directoryDeps, kind));
    router.delete(`${kind.path}/:externalId`, auth, requirePermission('api:write'), directoryDelete(directoryDeps, kind));
  };
  directory(COMPANY_KIND);
  directory(PERSON_KIND);
  // Connections to vendors (libs/connectors): credentials go in and never come out; writes need api:write.
  const connections = connectionHandlers({ ...deps, connectionsKey: deps.connections?.key, allowLoopback: deps.connections?.allowLoopback ?? false });
  const read = [auth, requirePermission('api:read', 'api:write')];
  const write = [auth, requirePermission('api:write')];
  router.post('/api/v1/connections', ...write, connections.create);
  router.get('/api/v1/connections', ...read, connections.list);
  router.get('/api/v1/connections/:connectionId', ...read, connections.get);
  router.patch('/api/v1/connections/:connectionId', ...write, connections.update);
  router.delete('/api/v1/connections/:connectionId', ...write, connections.remove);
  router.post('/api/v1/connections/:connectionId/pause', ...write, connections.pause);
  router.post('/api/v1/connections/:connectionId/resume', ...write, connections.resume);
  router.post('/api/v1/connections/:connectionId/sync', ...write, connections.sync);
  // Email forwarding (libs/connectors/src/email): each project's address; an address lets records in, so api:write.
  router.get('/api/v1/email-forwarding', ...write, emailForwardingHandler(deps));
  return router;
}
