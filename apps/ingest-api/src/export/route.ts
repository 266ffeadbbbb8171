import { once } from 'node:events';
import { ApiError } from '@loupe/http';
import type { RequestHandler } from 'express';
import type pg from 'pg';
import { decodeCursor, ExportCursorError, exportLines, type ExportPosition } from './lines';

/**
 * GET /api/v1/export?after=<cursor>: the workspace's evidence as NDJSON, streamed as it is read. A
 * stream that ends without its `end` line was cut short: ask again with the last line's cursor.
 */
export function exportHandler(pool: pg.Pool): RequestHandler {
  return async (req, res, next) => {
    let from: ExportPosition | undefined;
    try {
      const after = req.query.after;
      if (after !== undefined) {
        if (typeof after !== 'string' || after.length === 0 || after.length > 512) {
          throw ApiError.badRequest('Query parameter "after" must be the cursor of an export line (1 to 512 characters)');
        }
        from = decodeCursor(after);
      }
    } catch (error) {
      return next(error instanceof ExportCursorError ? ApiError.badRequest(`Query parameter "after": ${error.message}`) : error);
    }
    const workspaceId = req.principal!.workspaceId;
    res.status(200);
    res.setHeader('content-type', 'application/x-ndjson; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const lines = exportLines(pool, workspaceId, from);
    try {
      for await (const line of lines) {
        if (closed) break;
        if (!res.write(`${line}\n`)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      }
      res.end();
    } catch (error) {
      // The status is sent: the error handler logs it and cuts the stream, whose missing `end` line
      // tells the client to resume.
      next(error);
    } finally {
      await lines.return(undefined);
    }
  };
}
