import type pg from 'pg';

interface Waiting<Request, Answer> {
  request: Request;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

/**
 * Group commit: while one batch is out (`send`), the requests that arrive wait and go together in the
 * next one, so a busy process makes one round trip for many requests instead of one each. `send`
 * answers each request of its batch, in their order; a failed batch fails every request it carried.
 */
export class GroupCommit<Request, Answer> {
  private queue: Waiting<Request, Answer>[] = [];
  private busy = false;

  constructor(private readonly send: (batch: Request[]) => Promise<Answer[]>, private readonly maxBatch: number) {}

  add(request: Request): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      if (!this.busy) void this.drain();
    });
  }

  private async drain() {
    this.busy = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const answers = await this.send(batch.map((w) => w.request));
        batch.forEach((waiting, i) => waiting.resolve(answers[i]!));
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.busy = false;
  }
}

/**
 * A statement that answers many requests at once: `$k` is the array of every request's k-th value
 * (so `$1::text[]` read as `batch_requests($1::text[]) AS l(param, n)`, the others as `($k::type[])[l.n]`),
 * and it answers at most one row per request, with the column `n` (1-based: the request's place in the arrays).
 */
export interface BatchedStatement {
  /** Names the prepared statement: each connection parses and plans it once. */
  name: string;
  text: string;
  /**
   * For a statement that locks rows in its requests' order: the key its requests are sent sorted by
   * (else in arrival order), so that two statements, of two instances, lock the same rows in the same
   * order and never wait on each other in a cycle.
   */
  lockOrder?: (values: unknown[]) => string;
}

/** How many requests one statement carries at most. */
const MAX_BATCH = 500;

/**
 * A `BatchedStatement` run for concurrent requests by group commit: PostgreSQL parses, plans and
 * commits once for all of them, and each request is answered with its own row (undefined: none).
 */
export class StatementBatcher<Row extends object> {
  private readonly group: GroupCommit<unknown[], Row | undefined>;

  constructor(pool: Pick<pg.Pool, 'query'>, { name, text, lockOrder }: BatchedStatement) {
    this.group = new GroupCommit(async (batch) => {
      const sent = batch.map((values, i) => ({ values, i, key: lockOrder?.(values) ?? '' })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i));
      const columns = batch[0]!.map((_, k) => sent.map(({ values }) => values[k]));
      const { rows } = await pool.query<Row & { n: string | number }>({ name, text, values: columns });
      const byN = new Map(rows.map(({ n, ...row }) => [Number(n), row as unknown as Row]));
      const answers = new Array<Row | undefined>(batch.length);
      sent.forEach(({ i }, place) => (answers[i] = byN.get(place + 1)));
      return answers;
    }, MAX_BATCH);
  }

  /** This request's row (undefined when the statement answered none for it). */
  run(values: unknown[]): Promise<Row | undefined> {
    return this.group.add(values);
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
