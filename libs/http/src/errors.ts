/** The one error shape of the HTTP APIs (spec §7): `error`, `message`, optional `retryAfter` and `details`. */
export interface ErrorBody {
  error: string;
  message: string;
  retryAfter?: number;
  details?: Record<string, unknown>;
  [extra: string]: unknown;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: { retryAfter?: number; details?: Record<string, unknown>; body?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }

  static badRequest(message: string, details?: Record<string, unknown>) {
    return new ApiError(400, 'INVALID_REQUEST', message, details ? { details } : {});
  }
  static unauthorized(message = 'Missing or invalid API key: send it in the x-api-key header') {
    return new ApiError(401, 'UNAUTHORIZED', message);
  }
  static forbidden(message: string) {
    return new ApiError(403, 'FORBIDDEN', message);
  }
  static notFound(message: string) {
    return new ApiError(404, 'NOT_FOUND', message);
  }
}

export function errorBody(e: ApiError): ErrorBody {
  const body: ErrorBody = { error: e.code, message: e.message.slice(0, 2048) };
  if (e.extra.retryAfter !== undefined) body.retryAfter = e.extra.retryAfter;
  if (e.extra.details) body.details = e.extra.details;
  return { ...body, ...e.extra.body };
}
