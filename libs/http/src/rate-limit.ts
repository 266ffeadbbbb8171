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

/** A limiter that can also be swept on demand (it sweeps itself every `SWEEP_EVERY` calls). */
export interface SweepingRateLimiter extends RateLimiter {
  /** Deletes the windows that have ended for every limiter sharing the table; resolves to how many went. */
  sweep(): Promise<number>;
}

const SWEEP_EVERY = 500;

/**
 * A fixed-window counter kept in PostgreSQL: one upsert per request, so every
 * instance sharing the database enforces the same limit. Old windows are swept
 * now and then by the same process.
 *
 * Limiters of every window length (a minute per IP, an hour per address) share one
 * table and a row does not record its length, so a sweep only deletes windows that
 * started more than `MAX_RATE_WINDOW_MS` before this limiter's current window: they
 * have ended whatever limiter wrote them, and an hour-long window is never wiped by
 * a minute limiter's sweep.
 */
export function createRateLimiter(pool: pg.Pool, options: { limit: number; windowMs: number; clock: Clock }): SweepingRateLimiter {
  if (options.windowMs > MAX_RATE_WINDOW_MS) throw new RangeError(`rate windows are at most ${MAX_RATE_WINDOW_MS} ms`);
  const currentWindow = (now: number) => Math.floor(now / options.windowMs) * options.windowMs;
  async function sweep(): Promise<number> {
    const horizon = currentWindow(options.clock.now()) - MAX_RATE_WINDOW_MS;
    const { rowCount } = await pool.query('DELETE FROM rate_limit_counters WHERE window_start < $1', [horizon]);
    return rowCount ?? 0;
  }
  let calls = 0;
  return {
    sweep,
    async take(key) {
      const now = options.clock.now();
      const windowStart = currentWindow(now);
      const { rows } = await pool.query<{ count: number }>(
        `INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, 1)
         ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
         RETURNING count`,
        [key, windowStart],
      );
      if (++calls % SWEEP_EVERY === 0) sweep().catch(() => {});
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
