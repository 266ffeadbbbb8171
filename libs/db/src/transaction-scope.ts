import type pg from 'pg';

/**
 * One transaction that code written against a pool can join: `scope.pool` looks like a pool, its
 * queries run on the scope's connection (opened, with BEGIN, on first use), and a `withTransaction`
 * inside becomes a savepoint. The owner ends it with `commit()` or `rollback()`.
 *
 * Used where several independent writes must commit with one last step or not at all (a tool's
 * writes and its credit charge). Work on `scope.pool` is serialised on one connection.
 */
export interface TransactionScope {
  pool: pg.Pool;
  /** The scope's connection, inside its transaction (opens it if needed). */
  client(): Promise<pg.PoolClient>;
  /** True once a statement has run: a scope never used holds no connection. */
  readonly opened: boolean;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

export function createTransactionScope(pool: pg.Pool): TransactionScope {
  let opening: Promise<pg.PoolClient> | undefined;
  let ended = false;
  let savepoints = 0;

  const open = (): Promise<pg.PoolClient> => {
    if (ended) return Promise.reject(new Error('this transaction scope has ended'));
    opening ??= (async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      return client;
    })();
    return opening;
  };

  /** The connection as seen by nested code: BEGIN/COMMIT/ROLLBACK become savepoint moves, release does nothing. */
  const nested = (client: pg.PoolClient): pg.PoolClient => {
    const stack: string[] = [];
    const query = (text: unknown, ...rest: unknown[]) => {
      if (typeof text === 'string') {
        const verb = text.trim().toUpperCase();
        if (verb === 'BEGIN') {
          const name = `scope_${++savepoints}`;
          stack.push(name);
          return client.query(`SAVEPOINT ${name}`);
        }
        if ((verb === 'COMMIT' || verb === 'ROLLBACK') && stack.length) {
          const name = stack.pop()!;
          return client.query(verb === 'COMMIT' ? `RELEASE SAVEPOINT ${name}` : `ROLLBACK TO SAVEPOINT ${name}`);
        }
      }
      return (client.query as (...a: unknown[]) => unknown)(text, ...rest);
    };
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop === 'query') return query;
        if (prop === 'release') return () => {};
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };

  const scopedPool = new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query') return async (...args: unknown[]) => ((await open()).query as (...a: unknown[]) => unknown)(...args);
      if (prop === 'connect') return async () => nested(await open());
      return Reflect.get(target, prop, receiver);
    },
  });

  const end = async (verb: 'COMMIT' | 'ROLLBACK') => {
    if (ended) return;
    ended = true;
    if (!opening) return;
    const client = await opening.catch(() => undefined);
    if (!client) return;
    let result: pg.QueryResult;
    try {
      result = await client.query(verb);
    } catch (error) {
      client.release(error as Error);
      if (verb === 'COMMIT') throw error;
      return;
    }
    client.release();
    // COMMIT of a transaction that had failed rolls it back without an error: say so.
    if (verb === 'COMMIT' && result.command === 'ROLLBACK') throw new Error('the transaction had failed and was rolled back');
  };

  return {
    pool: scopedPool,
    client: open,
    get opened() {
      return opening !== undefined;
    },
    commit: () => end('COMMIT'),
    rollback: () => end('ROLLBACK'),
  };
}
