import type pg from 'pg';

/**
 * A statement that answers many requests at once: `$k` is the array of every request's k-th value
 * (so `$1::text[]` read as `batch_requests($1::text[]) AS l(param, n)`, the others as `($k::type[])[l.n]`),
 * and it answers at most one row per request, with the column `n` (1-based: the request's place in the batch).
 */
export interface BatchedStatement {
  /** Names the prepared statement: each connection parses and plans it once. */
  name: string;
  text: string;
}

interface Waiting<Row> {
  values: unknown[];
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}

/** How many requests one statement carries at most. */
const MAX_BATCH = 500;

/**
 * Group commit for one statement: while it is out, the requests that arrive wait and go together in
 * the next one, so a busy process sends one statement per round trip instead of one per request, and
 * PostgreSQL parses, plans and commits once for all of them. Each request is answered with its own
 * row; a failed statement fails every request it carried.
 */
export class StatementBatcher<Row extends object> {
  private queue: Waiting<Row>[] = [];
  private busy = false;

  constructor(private readonly pool: Pick<pg.Pool, 'query'>, private readonly statement: BatchedStatement) {}

  /** This request's row (undefined when the statement answered none for it). */
  run(values: unknown[]): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ values, resolve, reject });
      if (!this.busy) void this.drain();
    });
  }

  private async drain() {
    this.busy = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const columns = batch[0]!.values.map((_, k) => batch.map((w) => w.values[k]));
        const { rows } = await this.pool.query<Row & { n: string | number }>({ ...this.statement, values: columns });
        const byN = new Map(rows.map(({ n, ...row }) => [Number(n), row as unknown as Row]));
        batch.forEach((waiting, i) => waiting.resolve(byN.get(i + 1)));
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.busy = false;
  }
}

const batchers = new WeakMap<object, Map<string, StatementBatcher<object>>>();

/** The pool's batcher for `statement` (one per pool and statement name, so requests of a process share it). */
export function statementBatcher<Row extends object>(pool: Pick<pg.Pool, 'query'>, statement: BatchedStatement): StatementBatcher<Row> {
  let byName = batchers.get(pool);
  if (!byName) batchers.set(pool, (byName = new Map()));
  let batcher = byName.get(statement.name);
  if (!batcher) byName.set(statement.name, (batcher = new StatementBatcher(pool, statement)));
  return batcher as StatementBatcher<Row>;
}
