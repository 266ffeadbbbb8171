import type { Response } from 'express';
import type pg from 'pg';
import { createRateLimiter, statementBatcher, type Clock, type RateDecision, type RateLimiter, type SweepingRateLimiter } from '@loupe/http';
import { readAheadRefreshToken, refreshTokenRead, sha256, type RefreshTokenRead } from '@loupe/oauth';

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

/** The path whose per-IP count the token route takes itself, with its own limits in one statement. */
export const OAUTH_TOKEN_PATH = '/oauth/token';

/**
 * A refresh's two limits in one statement (spec 8.1): the per-IP count (`ip`, left to the route by
 * the shell) and the count per client connection, whose key names the refresh token's family (its
 * grant, read by the same statement; `unknown` for a token we do not hold); and the token itself with
 * its grant and user (`refreshTokenRead`), answered as `token` and handed to oidc-provider's lookup
 * in this request. Concurrent refreshes share the statement (`StatementBatcher`): each key's count
 * is added once for the batch, and each request gets the count it would have had alone, numbered in
 * arrival order. Keys are counted in key order, as every counter statement does, so two statements
 * never wait on each other in a cycle.
 * Per request: $1 the token's id hash, $2 the family key's prefix, $3 the refresh window,
 * $4 the per-IP key (null: counted elsewhere), $5 its window.
 */
const TAKE_REFRESH_LIMITS = {
  name: 'oauth-refresh-limits',
  text: `WITH request AS (
           SELECT l.n, l.param AS token, ($4::text[])[l.n] AS ip_key, ($5::bigint[])[l.n] AS ip_start, ($3::bigint[])[l.n] AS refresh_start,
                  ($2::text[])[l.n] || COALESCE((SELECT grant_id FROM oauth_models WHERE model = 'RefreshToken' AND id_hash = l.param), 'unknown') AS family_key
             FROM batch_requests($1::text[]) AS l(param, n)
         ), entries AS (
           SELECT n, family_key AS key, refresh_start AS start FROM request
           UNION ALL SELECT n, ip_key, ip_start FROM request WHERE ip_key IS NOT NULL
         ), counted AS (
           INSERT INTO rate_limit_counters (key, window_start, count)
           SELECT key, start, count(*) FROM entries GROUP BY key, start ORDER BY key, start
           ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + EXCLUDED.count
           RETURNING key, window_start, count
         ), numbered AS (
           SELECT e.n, e.key, c.count - count(*) OVER same_key + row_number() OVER (same_key ORDER BY e.n) AS count
             FROM entries e JOIN counted c ON c.key = e.key AND c.window_start = e.start
           WINDOW same_key AS (PARTITION BY e.key, e.start)
         )
         SELECT r.n,
                (SELECT count FROM numbered x WHERE x.n = r.n AND x.key = r.family_key) AS refresh_count,
                (SELECT count FROM numbered x WHERE x.n = r.n AND x.key = r.ip_key) AS ip_count,
                token.*
           FROM request r LEFT JOIN LATERAL (${refreshTokenRead('r.token')}) token ON true`,
};

const windowOf = (limiter: RateLimiter) => ('window' in limiter ? (limiter as SweepingRateLimiter).window() : undefined);

export async function takeRefreshLimits(
  req: object,
  pool: Pick<pg.Pool, 'query'>,
  refresh: RateLimiter,
  clientId: string,
  refreshToken: string,
  ip: { limiter: RateLimiter; key: string } | undefined,
): Promise<{ ip: RateDecision | undefined; refresh: RateDecision; token: RefreshTokenRead | undefined }> {
  const refreshWindow = windowOf(refresh)!;
  const ipWindow = ip && windowOf(ip.limiter);
  const token = refreshToken && refreshToken.length <= 512 ? sha256(refreshToken) : '';
  const counted = ip && ipWindow ? [ip.key, ipWindow.start] : [null, null];
  const row = await statementBatcher<{ refresh_count: number; ip_count: number | null } & RefreshTokenRead>(pool, TAKE_REFRESH_LIMITS)
    .run([token, `oauth-refresh:${clientId}:`, refreshWindow.start, ...counted]);
  const { refresh_count: refreshCount, ip_count: ipCount, ...read } = row!;
  // The token the same statement read: oidc-provider's lookup of it in this request is answered from it.
  const found = token && read.payload ? read : undefined;
  if (token) readAheadRefreshToken(req, token, found);
  return {
    ip: ip && (ipWindow ? ipWindow.decide(Number(ipCount)) : await ip.limiter.take(ip.key)),
    refresh: refreshWindow.decide(Number(refreshCount)),
    token: found,
  };
}
