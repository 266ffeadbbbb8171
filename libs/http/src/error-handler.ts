import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError, errorBody } from './errors';

const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '53300']);
/** Deadlock and serialization failure: the transaction was rolled back whole and a retry succeeds. */
const PG_CONFLICT = new Set(['40P01', '40001']);
const NET_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string; cause?: unknown } | undefined;
  if (!e) return false;
  if (e.code && (PG_UNAVAILABLE.has(e.code) || NET_UNAVAILABLE.has(e.code))) return true;
  if (e.message && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(e.message)) return true;
  return e.cause !== undefined && e.cause !== error && isDatabaseUnavailable(e.cause);
}

/** Maps every error to the shared body; unexpected ones are logged with the request id and never leak a stack. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  let e: ApiError;
  if (err instanceof ApiError) {
    e = err;
  } else if (isDatabaseUnavailable(err)) {
    req.log?.warn({ err }, 'database unavailable');
    e = new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry shortly', { retryAfter: 1, headers: { 'retry-after': '1' } });
  } else if (PG_CONFLICT.has((err as { code?: string }).code ?? '')) {
    req.log?.warn({ err }, 'transaction conflict; nothing was stored');
    e = new ApiError(503, 'SERVICE_UNAVAILABLE', 'The request collided with a concurrent one and nothing was stored; retry', {
      retryAfter: 1, headers: { 'retry-after': '1' },
    });
  } else if ((err as { type?: string }).type === 'entity.parse.failed') {
    e = ApiError.badRequest('The request body is not valid JSON');
  } else {
    req.log?.error({ err }, 'unexpected error');
    e = new ApiError(500, 'INTERNAL_ERROR', `Unexpected server error; retry. Request id: ${req.id ?? 'unknown'}`);
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [k, v] of Object.entries(e.extra.headers ?? {})) res.setHeader(k, v);
  res.status(e.status).json(errorBody(e));
};

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(ApiError.notFound(`No route for ${req.method} ${req.path}`));
};
