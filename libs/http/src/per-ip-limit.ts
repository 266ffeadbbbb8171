import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type pg from 'pg';
import type { Clock } from './clock';
import { createRateLimiter, type RateDecision, type RateLimiter } from './rate-limit';

/** Spec 8.1: all requests from one IP address, over the whole service. */
export const PER_IP_LIMIT = { limit: 2000, windowMs: 60_000 } as const;

export function createPerIpLimiter(pool: pg.Pool, clock: Clock, limit: number = PER_IP_LIMIT.limit): RateLimiter {
  return createRateLimiter(pool, { limit, windowMs: PER_IP_LIMIT.windowMs, clock });
}

const NOT_COUNTED = new Set(['/healthz', '/readyz']);

/** The client IP the per-IP limit counts (the socket's, or X-Forwarded-For from a trusted proxy). */
export function perIpKey(req: Request): string {
  return `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
}

/** A per-IP count left to the route, to be counted together with its own limits (`takeTogether`). */
export interface DeferredPerIpCheck {
  limiter: RateLimiter;
  key: string;
}

/** The deferred per-IP check of this request, when the shell left it to the route. */
export function deferredPerIpCheck(res: Response): DeferredPerIpCheck | undefined {
  return res.locals.deferredPerIp as DeferredPerIpCheck | undefined;
}

/**
 * Counts every request by client IP (`req.ip`: the socket's address, or X-Forwarded-For when the
 * sender is a configured trusted proxy) and answers 429 past the limit with the per-IP body of
 * spec 7.3. Health probes are not counted. Requests to `deferredPaths` are not counted here: their
 * route counts the IP in the same statement as its own limits (`deferredPerIpCheck`), and must.
 */
export function perIpRateLimit(limiter: RateLimiter, options: { deferredPaths?: readonly string[] } = {}): RequestHandler {
  const deferred = new Set(options.deferredPaths ?? []);
  return async (req: Request, res: Response, next: NextFunction) => {
    if (NOT_COUNTED.has(req.path)) return next();
    if (deferred.has(req.path)) {
      res.locals.deferredPerIp = { limiter, key: perIpKey(req) } satisfies DeferredPerIpCheck;
      return next();
    }
    try {
      const decision = await limiter.take(perIpKey(req));
      if (decision.allowed) return next();
      sendPerIpRateLimited(res, decision);
    } catch (error) {
      next(error);
    }
  };
}

/** The per-IP 429's body (spec 7.3): `msg`, `retryAfterSeconds`, and further fields (the limit, the window, and the OAuth fields, since OAuth clients read those). */
export function perIpRateLimitedBody(decision: RateDecision) {
  return {
    msg: `Too many requests from your IP address: at most ${decision.limit} per minute. Retry in ${decision.retryAfterSeconds} seconds.`,
    retryAfterSeconds: decision.retryAfterSeconds,
    limit: decision.limit,
    windowSeconds: PER_IP_LIMIT.windowMs / 1000,
    error: 'rate_limit_exceeded',
    error_description: `Too many requests from this IP address; retry in ${decision.retryAfterSeconds} seconds`,
    retry_after: decision.retryAfterSeconds,
  };
}

/** The per-IP 429 (spec 7.3), with Retry-After. */
export function sendPerIpRateLimited(res: Response, decision: RateDecision): void {
  res.status(429).setHeader('retry-after', String(decision.retryAfterSeconds));
  res.json(perIpRateLimitedBody(decision));
}
