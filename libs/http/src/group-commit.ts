import type pg from 'pg';
import { isDatabaseUnavailable } from './error-handler';
import { ApiError } from './errors';

interface Waiting<Request, Answer> {
  request: Request;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

/**
 * Group commit: while one batch is out (`send`), the requests that arrive wait and go together in the
 * next one, so a busy process makes one round trip for many requests instead of one each. `send`
 * answers each request of its batch, in their order. A batch that fails for one of its requests (its
 * value refused, a constraint broken) is split in halves and each half sent again, down to the request
 * that fails alone: only that request fails, and every other is answered as if it had come alone. A
 * batch that fails as a whole (the database unavailable, a conflict, a timeout) fails every request.
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
    while (this.queue.length > 0) await this.settle(this.queue.splice(0, this.maxBatch));
    this.busy = false;
  }

  private async settle(batch: Waiting<Request, Answer>[]): Promise<void> {
    let answers: Answer[];
    try {
      answers = await this.send(batch.map((w) => w.request));
    } catch (error) {
      if (batch.length === 1 || failsEveryRequest(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await this.settle(batch.slice(0, half));
      await this.settle(batch.slice(half));
      return;
    }
    batch.forEach((waiting, i) => waiting.resolve(answers[i]!));
  }
}

/**
 * An error no smaller batch would escape: the database unreachable or shutting down (08, 57), out of
 * resources (53), a conflict or a timeout (40, 57014), a system error (58, XX). Sending the requests again
 * one by one would only add load; any other error may be one request's, so the batch is split.
 */
function failsEveryRequest(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return isDatabaseUnavailable(error) || (typeof code === 'string' && /^(08|40|53|57|58|XX)/.test(code));
}

/**
 * The longest text, in UTF-8 bytes, a request may bring into a shared statement: an index row holds
 * about 2,700 bytes, and a rate-limit key or a looked-up value longer than that fails its statement.
 */
export const MAX_STATEMENT_TEXT_BYTES = 2400;

/**
 * Why `value` cannot go into a shared statement, or undefined when it can: PostgreSQL refuses a NUL
 * character in text, and a text longer than an index row holds fails the statement; both would fail
 * the requests sharing it, so such a request is refused alone, before it joins a batch.
 */
export function unfitForStatement(value: string): string | undefined {
  const nul = value.indexOf('\u0000');
  if (nul >= 0) return `contains a NUL character (\\u0000) at position ${nul}`;
  const bytes = value.length * 3 > MAX_STATEMENT_TEXT_BYTES ? Buffer.byteLength(value) : 0;
  if (bytes > MAX_STATEMENT_TEXT_BYTES) return `is ${bytes} bytes long; at most ${MAX_STATEMENT_TEXT_BYTES} are accepted`;
  return undefined;
}

/** Refuses a request whose text values could not go into a shared statement (`unfitForStatement`), with a 400 that says why. */
export function assertFitForStatement(values: readonly unknown[]): void {
  for (const value of values) {
    const why = typeof value === 'string' ? unfitForStatement(value) : undefined;
    if (why) throw ApiError.badRequest(`A value of the request ${why}, which no id or name can hold`);
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
    try {
      assertFitForStatement(values);
    } catch (error) {
      return Promise.reject(error);
    }
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
