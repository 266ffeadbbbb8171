import type { Response } from 'express';
import type pg from 'pg';
import { createRateLimiter, type Clock, type RateDecision, type RateLimiter, type SweepingRateLimiter } from '@loupe/http';
import { readAheadRefreshToken, REFRESH_TOKEN_READ, sha256, type RefreshTokenRead } from '@loupe/oauth';

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
 * its grant and user (`REFRESH_TOKEN_READ`), answered as `token` and handed to oidc-provider's lookup in this request. Keys are counted in
 * key order, as every counter statement does, so two statements never wait on each other in a cycle.
 */
const TAKE_REFRESH_LIMITS = {
  name: 'oauth-refresh-limits',
  text: `WITH family AS (
           SELECT $4::text || COALESCE((SELECT grant_id FROM oauth_models WHERE model = 'RefreshToken' AND id_hash = $1), 'unknown') AS key
         ), entries AS (
           SELECT key, start FROM unnest($2::text[], $3::bigint[]) AS e(key, start)
           UNION ALL SELECT family.key, $5::bigint FROM family
         ), counted AS (
           INSERT INTO rate_limit_counters (key, window_start, count)
           SELECT key, start, 1 FROM entries ORDER BY key, start
           ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + EXCLUDED.count
           RETURNING key, window_start, count
         )
         SELECT (SELECT key FROM family) AS family_key,
                (SELECT array_agg(key ORDER BY key) FROM counted) AS keys,
                (SELECT array_agg(window_start ORDER BY key) FROM counted) AS starts,
                (SELECT array_agg(count ORDER BY key) FROM counted) AS counts,
                token.*
           FROM (SELECT 1) one LEFT JOIN (${REFRESH_TOKEN_READ}) token ON true`,
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
  const fixed = ip && ipWindow ? [{ key: ip.key, start: ipWindow.start }] : [];
  const token = refreshToken && refreshToken.length <= 512 ? sha256(refreshToken) : '';
  const { rows } = await pool.query<{ family_key: string; keys: string[]; starts: (string | number)[]; counts: number[] } & RefreshTokenRead>({
    ...TAKE_REFRESH_LIMITS,
    values: [token, fixed.map((f) => f.key), fixed.map((f) => f.start), `oauth-refresh:${clientId}:`, refreshWindow.start],
  });
  const { family_key: familyKey, keys, starts, counts, ...read } = rows[0]!;
  // The token the same statement read: oidc-provider's lookup of it in this request is answered from it.
  const found = token && read.payload ? read : undefined;
  if (token) readAheadRefreshToken(req, token, found);
  const countOf = (key: string, start: number) => counts[keys.findIndex((k, i) => k === key && Number(starts[i]) === start)]!;
  return {
    ip: ip && (ipWindow ? ipWindow.decide(countOf(ip.key, ipWindow.start)) : await ip.limiter.take(ip.key)),
    refresh: refreshWindow.decide(countOf(familyKey, refreshWindow.start)),
    token: found,
  };
}
