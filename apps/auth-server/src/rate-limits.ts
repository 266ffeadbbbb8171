import type { Response } from 'express';
import type pg from 'pg';
import { createRateLimiter, type Clock, type RateDecision } from '@loupe/http';

const HOUR = 3600_000;

/** The OAuth limits of spec 8.1, counted in PostgreSQL so every instance on the database shares them. */
export function createOAuthLimiters(pool: pg.Pool, clock: Clock) {
  return {
    registration: createRateLimiter(pool, { limit: 10, windowMs: HOUR, clock }),
    codeExchange: createRateLimiter(pool, { limit: 20, windowMs: HOUR, clock }),
    refresh: createRateLimiter(pool, { limit: 60, windowMs: HOUR, clock }),
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
