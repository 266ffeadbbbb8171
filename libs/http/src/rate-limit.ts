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

/** A limiter kept in PostgreSQL: it can be swept on demand, and counted together with others (`takeTogether`). */
export interface SweepingRateLimiter extends RateLimiter {
  /** Deletes the windows that have ended for every limiter sharing the table; resolves to how many went. */
  sweep(): Promise<number>;
  /** The window `take` would count in now, and the decision for a count reached in it. */
  window(): { start: number; decide(count: number): RateDecision };
}

const SWEEP_EVERY = 500;

// Named, so each connection parses and plans it once: it runs on every request.
const TAKE = {
  name: 'rate-limit-take',
  text: `INSERT INTO rate_limit_counters (key, window_start, count)
         SELECT * FROM unnest($1::text[], $2::bigint[], array_fill(1, ARRAY[cardinality($1::text[])]))
         ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
         RETURNING key, window_start, count`,
};

/** Adds one to each (key, window) in one statement, in a stable order (two callers never deadlock). */
async function bump(pool: Pick<pg.Pool, 'query'>, entries: { key: string; start: number }[]): Promise<Map<string, number>> {
  const sorted = [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.start - b.start));
  const { rows } = await pool.query<{ key: string; window_start: string | number; count: number }>({
    ...TAKE,
    values: [sorted.map((e) => e.key), sorted.map((e) => e.start)],
  });
  return new Map(rows.map((r) => [`${r.key}\n${Number(r.window_start)}`, r.count]));
}

/**
 * A fixed-window counter kept in PostgreSQL: one upsert per request, so every
 * instance sharing the database enforces the same limit. Old windows are swept
 * now and then by the same process.
 *
 * Limiters of every window length (a minute per IP, an hour per address) share one
 * table and a row does not record its length, so a sweep only deletes windows that
 * started more than `MAX_RATE_WINDOW_MS` before this limiter's current window: they
 * have ended whatever limiter wrote them, and an hour-long window is never wiped by
 * a minute limiter's sweep. The table is unlogged: counters are worth nothing after a crash.
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
  const limiter: SweepingRateLimiter = {
    sweep,
    window() {
      const now = options.clock.now();
      const start = currentWindow(now);
      if (++calls % SWEEP_EVERY === 0) sweep().catch(() => {});
      return {
        start,
        decide: (count) => ({
          allowed: count <= options.limit,
          limit: options.limit,
          remaining: Math.max(0, options.limit - count),
          retryAfterSeconds: Math.max(1, Math.ceil((start + options.windowMs - now) / 1000)),
        }),
      };
    },
    async take(key) {
      const w = limiter.window();
      const counts = await bump(pool, [{ key, start: w.start }]);
      return w.decide(counts.get(`${key}\n${w.start}`)!);
    },
  };
  return limiter;
}

/**
 * Several counts at once: those of PostgreSQL limiters in one statement (one round trip and one
 * commit, however many limits a request is under), any other limiter on its own. Decisions come
 * back in the order of `checks`.
 */
export async function takeTogether(pool: Pick<pg.Pool, 'query'>, checks: { limiter: RateLimiter; key: string }[]): Promise<RateDecision[]> {
  const windows = checks.map((c) => ('window' in c.limiter ? (c.limiter as SweepingRateLimiter).window() : undefined));
  const shared = checks.flatMap((c, i) => (windows[i] ? [{ key: c.key, start: windows[i].start }] : []));
  const counts = shared.length ? await bump(pool, shared) : new Map<string, number>();
  return Promise.all(checks.map(async (c, i) => {
    const w = windows[i];
    return w ? w.decide(counts.get(`${c.key}\n${w.start}`)!) : c.limiter.take(c.key);
  }));
}
