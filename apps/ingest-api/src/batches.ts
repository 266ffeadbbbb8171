import { CursorError, getBatch, listBatches } from '@loupe/batches';
import { ApiError } from '@loupe/http';
import { LIMITS } from '@loupe/records';
import type { RequestHandler } from 'express';
import type pg from 'pg';

function pageSize(raw: unknown): number {
  if (raw === undefined) return LIMITS.pageSizeDefault;
  if (typeof raw !== 'string' || !/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > LIMITS.pageSizeMax) {
    throw ApiError.badRequest(`Query parameter "limit" must be an integer from 1 to ${LIMITS.pageSizeMax} (got ${JSON.stringify(raw)})`);
  }
  return Number(raw);
}

/** GET /api/v1/ingest/batches?limit=&cursor= */
export function listHandler(pool: pg.Pool): RequestHandler {
  return async (req, res, next) => {
    try {
      const limit = pageSize(req.query.limit);
      const cursor = req.query.cursor;
      if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > LIMITS.cursorLength)) {
        throw ApiError.badRequest(`Query parameter "cursor" must be a nextCursor of 1 to ${LIMITS.cursorLength} characters`);
      }
      try {
        res.json(await listBatches(pool, req.principal!.workspaceId, { limit, cursor }));
      } catch (error) {
        if (error instanceof CursorError) throw ApiError.badRequest(`Query parameter "cursor": ${error.message}`);
        throw error;
      }
    } catch (error) {
      next(error);
    }
  };
}

/** GET /api/v1/ingest/batches/:batchId — another workspace's batch is as absent as a missing one. */
export function getHandler(pool: pg.Pool): RequestHandler {
  return async (req, res, next) => {
    try {
      const batchId = String(req.params.batchId);
      if (batchId.length > LIMITS.batchIdLength) {
        throw ApiError.badRequest(`Path parameter "batchId" must be at most ${LIMITS.batchIdLength} characters`);
      }
      const batch = await getBatch(pool, req.principal!.workspaceId, batchId);
      if (!batch) throw ApiError.notFound(`Batch ${JSON.stringify(batchId)} not found`);
      res.json(batch);
    } catch (error) {
      next(error);
    }
  };
}
