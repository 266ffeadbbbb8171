import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

// BIGINT columns (byte sizes) come back as numbers; every value we store fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // pg-pool removes its idle 'error' listener while a client is checked out, so a connection that
  // drops between two statements of a transaction would emit 'error' with nobody listening and end
  // the process (a database restart did exactly that). The error still reaches the caller: the
  // client's next query fails, and the pool discards a client that is no longer queryable.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs `fn` in one transaction on one connection; commits on success, rolls back on any throw. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
