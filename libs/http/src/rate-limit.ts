import type pg from 'pg';
import type { Clock } from './clock';
import { assertFitForStatement, GroupCommit } from './group-commit';

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

// Named, so each connection parses and plans it once: it runs for every batch of requests.
const TAKE = {
  name: 'rate-limit-take-many',
  text: `INSERT INTO rate_limit_counters (key, window_start, count)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[])
         ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + EXCLUDED.count
         RETURNING key, window_start, count`,
};

interface Entry {
  key: string;
  start: number;
  /** How many requests this entry stands for (a JSON-RPC batch of n messages); 1 unless given. */
  cost?: number;
}

/** One request's share of a counting statement: its counts, and the parameter of its lookup (CountedLookup), when the batcher has one; null looks nothing up. */
interface Counting {
  entries: Entry[];
  param?: string | null;
}

/**
 * A read answered in the same statement as the counts (`takeTogetherWith`): `select` reads
 * `$4::text[]` as `batch_requests($4::text[]) AS l(param, n)` (unnest with ordinality, planned as
 * one row: see its migration) and answers at most one row per `n` (1-based: the request's place in
 * the batch), with the column `n`. Nothing is cached: each request's row is read by the statement
 * that counts it.
 */
export interface CountedLookup {
  /** Names the prepared statement: each connection parses and plans it once. */
  name: string;
  select: string;
}

const idOf = (e: Entry) => `${e.key}\n${e.start}`;

/** How many requests' counts one statement carries at most. */
const MAX_BATCH = 1000;

/**
 * Group commit for counters (`GroupCommit`): a busy process sends one upsert per round trip instead
 * of one per request. Each request still gets the exact count it would have had alone: the requests
 * of a batch are numbered in arrival order within the total the statement added to each key.
 */
class CounterBatcher {
  private readonly group = new GroupCommit((batch: Counting[]) => this.answer(batch), MAX_BATCH);
  private readonly statement: { name: string; text: string };

  constructor(private readonly pool: Pick<pg.Pool, 'query'>, private readonly lookup?: CountedLookup) {
    this.statement = lookup
      ? {
          name: `${TAKE.name}+${lookup.name}`,
          // The counts as three arrays beside each row the lookup found (one row of nulls when it found none).
          text: `WITH counted AS (${TAKE.text}),
                      found AS (${lookup.select})
                 SELECT c.keys, c.starts, c.counts, found.*
                   FROM (SELECT array_agg(key) AS keys, array_agg(window_start) AS starts, array_agg(count) AS counts FROM counted) c
                   LEFT JOIN found ON true`,
        }
      : TAKE;
  }

  add(entries: Entry[], param?: string | null): Promise<{ counts: Map<string, number>; row?: Record<string, unknown> }> {
    try {
      assertFitForStatement([...entries.map((e) => e.key), param]);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.group.add({ entries, param });
  }

  private async answer(batch: Counting[]) {
    const { counts, rows } = await this.count(batch);
    return batch.map((counting, i) => ({
      counts: new Map(counting.entries.map((e) => {
        const id = idOf(e);
        const n = counts.get(id)!;
        counts.set(id, n + (e.cost ?? 1));
        return [id, n] as const;
      })),
      row: rows.get(i + 1),
    }));
  }

  /** Adds each key's share of the batch in one statement, keys in a stable order (two instances never deadlock); answers each key's first count. */
  private async count(batch: Counting[]): Promise<{ counts: Map<string, number>; rows: Map<number, Record<string, unknown>> }> {
    const added = new Map<string, Entry & { n: number }>();
    for (const e of batch.flatMap((w) => w.entries)) {
      const row = added.get(idOf(e));
      if (row) row.n += e.cost ?? 1;
      else added.set(idOf(e), { key: e.key, start: e.start, n: e.cost ?? 1 });
    }
    const rows = [...added.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.start - b.start));
    const values: unknown[] = [rows.map((r) => r.key), rows.map((r) => r.start), rows.map((r) => r.n)];
    if (!this.lookup) {
      const result = await this.pool.query<{ key: string; window_start: string | number; count: number }>({ ...TAKE, values });
      return { counts: firstCounts(result.rows, added), rows: new Map() };
    }
    const result = await this.pool.query<{ keys: string[] | null; starts: (string | number)[] | null; counts: number[] | null; n: string | number | null }>({
      ...this.statement,
      values: [...values, batch.map((w) => w.param ?? null)],
    });
    const first = result.rows[0];
    const counted = (first?.keys ?? []).map((key, i) => ({ key, window_start: first!.starts![i]!, count: first!.counts![i]! }));
    const found = new Map<number, Record<string, unknown>>();
    for (const row of result.rows) {
      if (row.n === null) continue;
      const { keys: _k, starts: _s, counts: _c, ...rest } = row;
      found.set(Number(row.n), rest);
    }
    return { counts: firstCounts(counted, added), rows: found };
  }
}

/** Each key's first count in the batch, from the totals the statement returned (`n`: what the batch added). */
function firstCounts(rows: { key: string; window_start: string | number; count: number }[], added: Map<string, Entry & { n: number }>): Map<string, number> {
  return new Map(rows.map((r) => {
    const id = `${r.key}\n${Number(r.window_start)}`;
    return [id, r.count - added.get(id)!.n + 1];
  }));
}

const batchers = new WeakMap<object, CounterBatcher>();
const lookupBatchers = new WeakMap<object, Map<CountedLookup, CounterBatcher>>();

function batcherOf(pool: Pick<pg.Pool, 'query'>, lookup?: CountedLookup): CounterBatcher {
  if (!lookup) {
    let batcher = batchers.get(pool);
    if (!batcher) batchers.set(pool, (batcher = new CounterBatcher(pool)));
    return batcher;
  }
  let byLookup = lookupBatchers.get(pool);
  if (!byLookup) lookupBatchers.set(pool, (byLookup = new Map()));
  let batcher = byLookup.get(lookup);
  if (!batcher) byLookup.set(lookup, (batcher = new CounterBatcher(pool, lookup)));
  return batcher;
}

/** Adds one to each (key, window); the counts come back keyed `key\nstart`. */
async function bump(pool: Pick<pg.Pool, 'query'>, entries: Entry[]): Promise<Map<string, number>> {
  return (await batcherOf(pool).add(entries)).counts;
}

/**
 * A fixed-window counter kept in PostgreSQL, so every instance sharing the database enforces the
 * same limit: one upsert per request, or per batch of them when requests overlap (CounterBatcher). Old windows are swept
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
  return (await takeTogetherWith(pool, checks)).decisions;
}

/**
 * `takeTogether`, and a read (`lookup`, with this request's `param`) answered by the same statement:
 * one round trip for the counts and, say, the credential they guard. Requests that overlap share a
 * statement as the counts do; each gets the row its own parameter found (undefined for none).
 */
export async function takeTogetherWith<Row = Record<string, unknown>>(
  pool: Pick<pg.Pool, 'query'>,
  checks: { limiter: RateLimiter; key: string }[],
  lookup?: { query: CountedLookup; param: string | null },
): Promise<{ decisions: RateDecision[]; row: Row | undefined }> {
  const windows = checks.map((c) => ('window' in c.limiter ? (c.limiter as SweepingRateLimiter).window() : undefined));
  const shared = checks.flatMap((c, i) => (windows[i] ? [{ key: c.key, start: windows[i].start }] : []));
  const answer = shared.length || lookup
    ? await batcherOf(pool, lookup?.query).add(shared, lookup?.param)
    : { counts: new Map<string, number>(), row: undefined };
  const decisions = await Promise.all(checks.map(async (c, i) => {
    const w = windows[i];
    return w ? w.decide(answer.counts.get(`${c.key}\n${w.start}`)!) : c.limiter.take(c.key);
  }));
  return { decisions, row: answer.row as Row | undefined };
}

/** A decision for `cost` requests counted at once (`takeCost`). */
export interface CostDecision extends RateDecision {
  /** How many of the `cost` requests fall within the limit, counted in their order (0 to `cost`). */
  admitted: number;
}

/**
 * Counts `cost` requests at once under each of `checks` (one statement for the PostgreSQL limiters,
 * shared with overlapping requests like every count): what a JSON-RPC batch of n messages costs
 * beyond the one request its POST was already counted as. The requests are numbered in order within
 * each key's window, as if sent one by one: the first `admitted` are within the limit, the rest are
 * not. `allowed`, `remaining` and `retryAfterSeconds` are those of the last of them.
 */
export async function takeCost(pool: Pick<pg.Pool, 'query'>, checks: { limiter: RateLimiter; key: string }[], cost: number): Promise<CostDecision[]> {
  if (!Number.isInteger(cost) || cost < 1) throw new RangeError(`cost must be a positive integer, got ${cost}`);
  const windows = checks.map((c) => ('window' in c.limiter ? (c.limiter as SweepingRateLimiter).window() : undefined));
  const shared = checks.flatMap((c, i) => (windows[i] ? [{ key: c.key, start: windows[i].start, cost }] : []));
  const counts = shared.length ? (await batcherOf(pool).add(shared)).counts : new Map<string, number>();
  return Promise.all(checks.map(async (c, i) => {
    const w = windows[i];
    if (w) {
      const first = counts.get(`${c.key}\n${w.start}`)!;
      const last = w.decide(first + cost - 1);
      return { ...last, admitted: Math.min(cost, Math.max(0, last.limit - first + 1)) };
    }
    // A limiter kept elsewhere counts one request at a time.
    let admitted = 0;
    let last: RateDecision | undefined;
    for (let n = 0; n < cost; n++) {
      last = await c.limiter.take(c.key);
      if (last.allowed && admitted === n) admitted++;
    }
    return { ...last!, admitted };
  }));
}
