import { ApiError, type Clock, type Logger } from '@loupe/http';
import { deleteEvidence } from '@loupe/lifecycle';
import { LIMITS } from '@loupe/records';
import type { Storage } from '@loupe/storage';
import type { RequestHandler } from 'express';
import type pg from 'pg';

export interface DeletionDeps {
  pool: pg.Pool;
  storage: Storage;
  clock: Clock;
  log?: Logger;
}

const NOUN = { source: 'Source', record: 'Record' } as const;

/**
 * DELETE /api/v1/sources/{sourceId} and DELETE /api/v1/records/{recordId}: the source and the record it
 * was built from go together, with everything that hangs off them (libs/lifecycle). 200 with
 * `{id, object, deleted: true}` and the other half's id; deleting again, like an id of another
 * workspace, is a 404 (docs/ingest/export-and-deletion.md).
 */
export function deleteHandler(deps: DeletionDeps, object: 'source' | 'record'): RequestHandler {
  return async (req, res, next) => {
    try {
      const param = object === 'source' ? 'sourceId' : 'recordId';
      const id = String(req.params[param] ?? '');
      if (id.length > LIMITS.batchIdLength) throw ApiError.badRequest(`Path parameter "${param}" must be at most ${LIMITS.batchIdLength} characters`);
      const workspaceId = req.principal!.workspaceId;
      const out = await deleteEvidence({ pool: deps.pool, storage: deps.storage, clock: deps.clock, log: deps.log }, workspaceId, object === 'source' ? { sourceIds: [id] } : { recordIds: [id] });
      if (object === 'source') {
        const source = out.sources[0];
        if (!source) throw ApiError.notFound(`${NOUN[object]} "${id}" not found`);
        res.status(200).json({ id: source.id, object, deleted: true, recordId: source.recordId });
      } else {
        const record = out.records[0];
        if (!record) throw ApiError.notFound(`${NOUN[object]} "${id}" not found`);
        res.status(200).json({ id: record.id, object, deleted: true, sourceId: record.sourceId });
      }
    } catch (error) {
      next(error);
    }
  };
}
