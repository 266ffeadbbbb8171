import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type pg from 'pg';
import type { Clock } from './clock';
import { createRateLimiter, type RateLimiter } from './rate-limit';

/** Spec 8.1: all requests from one IP address, over the whole service. */
export const PER_IP_LIMIT = { limit: 2000, windowMs: 60_000 } as const;

export function createPerIpLimiter(pool: pg.Pool, clock: Clock, limit: number = PER_IP_LIMIT.limit): RateLimiter {
  return createRateLimiter(pool, { limit, windowMs: PER_IP_LIMIT.windowMs, clock });
}

const NOT_COUNTED = new Set(['/healthz', '/readyz']);

/**
 * Counts every request by client IP (`req.ip`: the socket's address, or X-Forwarded-For when the
 * sender is a configured trusted proxy) and answers 429 past the limit with the per-IP body of
 * spec 7.3: `msg`, `retryAfterSeconds`, and further fields (the limit, the window, and the OAuth
 * fields, since OAuth clients read those). Health probes are not counted.
 */
export function perIpRateLimit(limiter: RateLimiter): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (NOT_COUNTED.has(req.path)) return next();
    try {
      const decision = await limiter.take(`ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`);
      if (decision.allowed) return next();
      res.status(429).setHeader('retry-after', String(decision.retryAfterSeconds));
      res.json({
        msg: `Too many requests from your IP address: at most ${decision.limit} per minute. Retry in ${decision.retryAfterSeconds} seconds.`,
        retryAfterSeconds: decision.retryAfterSeconds,
        limit: decision.limit,
        windowSeconds: PER_IP_LIMIT.windowMs / 1000,
        error: 'rate_limit_exceeded',
        error_description: `Too many requests from this IP address; retry in ${decision.retryAfterSeconds} seconds`,
        retry_after: decision.retryAfterSeconds,
      });
    } catch (error) {
      next(error);
    }
  };
}
