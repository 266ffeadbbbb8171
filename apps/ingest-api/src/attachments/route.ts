import { ApiError, sendDownload } from '@loupe/http';
import { LIMITS } from '@loupe/records';
import { attachmentFile } from '@loupe/sources';
import { StorageNotFoundError, type Storage } from '@loupe/storage';
import type { RequestHandler } from 'express';
import type pg from 'pg';

export interface AttachmentDownloadDeps {
  pool: pg.Pool;
  storage: Storage;
}

/** Positions are the index in the record's `_attachments`, which holds at most this many. */
const MAX_POSITION = 10_000;

/**
 * GET /api/v1/records/{recordId}/attachments/{position}: the file the worker downloaded for a record's
 * attachment, streamed from wherever it is stored (the local disk or the bucket), so any instance serves
 * what any worker stored. 404 names why there is no file: no such record or position, or not downloaded
 * (its status, and the download's error when it failed).
 */
export function attachmentDownloadHandler(deps: AttachmentDownloadDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const recordId = String(req.params.recordId ?? '');
      const positionParam = String(req.params.position ?? '');
      if (recordId.length > LIMITS.batchIdLength) throw ApiError.badRequest(`Path parameter "recordId" must be at most ${LIMITS.batchIdLength} characters`);
      if (!/^\d{1,5}$/.test(positionParam) || Number(positionParam) > MAX_POSITION) {
        throw ApiError.badRequest(`Path parameter "position" must be the attachment's index in the record's _attachments: a whole number from 0 to ${MAX_POSITION}`);
      }
      const position = Number(positionParam);
      const file = await attachmentFile(deps.pool, req.principal!.workspaceId, { recordId }, position);
      if (!file) throw ApiError.notFound(`Record "${recordId}" has no attachment at position ${position}`);
      if (!file.storageKey && file.status === 'COMPLETE') throw ApiError.notFound(`Attachment ${position} of record "${recordId}" is no longer stored`);
      if (!file.storageKey) {
        throw ApiError.notFound(`Attachment ${position} of record "${recordId}" has no file: its status is ${file.status}${file.status === 'PENDING' || file.status === 'DOWNLOADING' ? ' (the worker has not finished downloading it)' : ''}`);
      }
      const body = await deps.storage.get(file.storageKey).catch((error: unknown) => {
        if (error instanceof StorageNotFoundError) throw ApiError.notFound(`Attachment ${position} of record "${recordId}" is no longer stored`);
        throw error;
      });
      await sendDownload(res, body, { filename: file.filename ?? `attachment-${position}`, mimeType: file.mimeType, size: file.size });
    } catch (error) {
      next(error);
    }
  };
}
