import type pg from 'pg';
import type { Clock } from './clock';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets (Retry-After semantics). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  take(key: string): Promise<RateDecision>;
}

/** The longest window a limiter may use; every limiter's sweep keeps windows this recent, whoever owns them. */
export const MAX_RATE_WINDOW_MS = 24 * 3600_000;

/**
 * A fixed-window counter kept in PostgreSQL: one upsert per request, so every
 * instance sharing the database enforces the same limit. Old windows are swept
 * now and then by the same process.
 */
export function createRateLimiter(pool: pg.Pool, options: { limit: number; windowMs: number; clock: Clock }): RateLimiter {
  if (options.windowMs > MAX_RATE_WINDOW_MS) throw new RangeError(`rate windows are at most ${MAX_RATE_WINDOW_MS} ms`);
  let calls = 0;
  return {
    async take(key) {
      const now = options.clock.now();
      const windowStart = Math.floor(now / options.windowMs) * options.windowMs;
      const { rows } = await pool.query<{ count: number }>(
        `INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
         RETURNING count`,
        [key, windowStart],
      );
      if (++calls % 500 === 0) {
        // Limiters of every window length share the table: only windows older than the longest one go.
        pool.query('DELETE FROM rate_limit_counters WHERE window_start < $1', [windowStart - MAX_RATE_WINDOW_MS]).catch(() => {});
      }
      const count = rows[0]!.count;
      return {
        allowed: count <= options.limit,
        limit: options.limit,
        remaining: Math.max(0, options.limit - count),
        retryAfterSeconds: Math.max(1, Math.ceil((windowStart + options.windowMs - now) / 1000)),
      };
    },
  };
}
