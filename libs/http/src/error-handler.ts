import type { ErrorRequestHandler, RequestHandler } from 'express';
import { ApiError, errorBody } from './errors';

const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '53300']);
/** Deadlock and serialization failure: the transaction was rolled back whole and a retry succeeds. */
const PG_CONFLICT = new Set(['40P01', '40001']);
const NET_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

/** A PostgreSQL that is down, restarting or unreachable (not a fault of the request): answered 503, retry. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; syscall?: string; message?: string; cause?: unknown } | undefined;
  if (!e) return false;
  if (e.code && (PG_UNAVAILABLE.has(e.code) || NET_UNAVAILABLE.has(e.code))) return true;
  // A server reached through its Unix socket (the embedded one) removes the socket when it stops.
  if (e.code === 'ENOENT' && e.syscall === 'connect') return true;
  if (e.message && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(e.message)) return true;
  return e.cause !== undefined && e.cause !== error && isDatabaseUnavailable(e.cause);
}

/**
 * The body parsers' refusals of what the client sent (body-parser and raw-body errors, by their `type`):
 * the client's mistake, answered with the status they carry, never as a 500.
 */
const BODY_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  'entity.too.large': { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than this endpoint accepts' },
  'parameters.too.many': { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The request body has more parameters than this endpoint accepts' },
  'charset.unsupported': { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'The charset of the request body is not supported; send UTF-8' },
  'encoding.unsupported': { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'The Content-Encoding of the request body is not supported' },
  'request.aborted': { status: 400, code: 'INVALID_REQUEST', message: 'The request body was not received whole' },
  'request.size.invalid': { status: 400, code: 'INVALID_REQUEST', message: 'The request body is shorter or longer than its Content-Length' },
};

/** PostgreSQL's "invalid byte sequence for encoding UTF8": from a UTF-8 client only a NUL character the request carried causes it. */
const PG_NUL_IN_TEXT = '22021';

/** The SQLSTATE of a pg error, of a Prisma error from the pg driver adapter, or of one either wraps. */
function sqlState(error: unknown, depth = 0): string | undefined {
  const e = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } }; cause?: unknown } | undefined;
  if (!e || depth > 4) return undefined;
  const adapter = e.meta?.driverAdapterError?.cause?.originalCode;
  if (typeof adapter === 'string') return adapter;
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return e.cause !== undefined && e.cause !== error ? sqlState(e.cause, depth + 1) : undefined;
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
  } else if (sqlState(err) === PG_NUL_IN_TEXT) {
    e = ApiError.badRequest('The request contains a NUL character (\\u0000), which no text field or id can hold');
  } else if (err instanceof URIError && (err as { status?: number }).status === 400) {
    // express could not percent-decode a path parameter (`/…/%ZZ`): the client's mistake
    e = ApiError.badRequest('A path parameter is not valid percent-encoding (UTF-8, each % followed by two hex digits)');
  } else if (BODY_ERRORS[(err as { type?: string }).type ?? '']) {
    const known = BODY_ERRORS[(err as { type: string }).type]!;
    e = new ApiError(known.status, known.code, known.message);
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
