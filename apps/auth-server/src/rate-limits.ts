import type { NextFunction, Request, Response } from 'express';
import type pg from 'pg';
import { createRateLimiter, type Clock, type RateDecision, type RateLimiter } from '@loupe/http';

const HOUR = 3600_000;

/** The OAuth limits of spec 8.1, counted in PostgreSQL so every instance on the database shares them. */
export function createOAuthLimiters(pool: pg.Pool, clock: Clock) {
  return {
    registration: createRateLimiter(pool, { limit: 10, windowMs: HOUR, clock }),
    codeExchange: createRateLimiter(pool, { limit: 20, windowMs: HOUR, clock }),
    refresh: createRateLimiter(pool, { limit: 60, windowMs: HOUR, clock }),
    perIp: createRateLimiter(pool, { limit: 2000, windowMs: 60_000, clock }),
  };
}
export type OAuthLimiters = ReturnType<typeof createOAuthLimiters>;

/** 429 for OAuth endpoints (spec 7.3): `error`, `error_description`, `retry_after`, and `Retry-After`. */
export function sendOAuthRateLimited(res: Response, decision: RateDecision, what: string) {
  res.status(429).setHeader('retry-after', String(decision.retryAfterSeconds));
  res.json({
    error: 'rate_limit_exceeded',
    error_description: `Too many ${what}: at most ${decision.limit} per ${what.includes('minute') ? 'minute' : 'hour'}. Retry in ${decision.retryAfterSeconds} seconds.`,
    retry_after: decision.retryAfterSeconds,
  });
}

/**
 * 2,000 requests a minute per IP address over the authorization server. Its 429 carries the per-IP
 * fields of spec 7.3 (`msg`, `retryAfterSeconds`) and, since the caller is an OAuth client, the OAuth ones.
 */
export function perIpLimit(limiter: () => Promise<RateLimiter>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const decision = await (await limiter()).take(`oauth-ip:${req.ip}`);
      if (decision.allowed) return next();
      res.status(429).setHeader('retry-after', String(decision.retryAfterSeconds));
      res.json({
        msg: `Too many requests from your IP address: at most ${decision.limit} per minute. Retry in ${decision.retryAfterSeconds} seconds.`,
        retryAfterSeconds: decision.retryAfterSeconds,
        limit: decision.limit,
        windowSeconds: 60,
        error: 'rate_limit_exceeded',
        error_description: `Too many requests from this IP address; retry in ${decision.retryAfterSeconds} seconds`,
        retry_after: decision.retryAfterSeconds,
      });
    } catch (error) {
      next(error);
    }
  };
}
