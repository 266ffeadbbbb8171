import { setPriority } from 'node:os';
import type pg from 'pg';
import { createPool } from './pool';

/**
 * A pool for background work (the worker inside `npm start`) whose PostgreSQL backends run at a lower CPU
 * priority (`nice`), so on a small machine the statements that answer people (searches, pages) keep their
 * share while records are processed. Only for a server on this machine (the embedded one): a backend's
 * process is renice'd by its pid; where that is not allowed (another user without the right), the
 * connection simply keeps its priority.
 */
export function createBackgroundPool(connectionString: string, max: number, nice: number): pg.Pool {
  const pool = createPool(connectionString, max);
  if (nice <= 0) return pool;
  pool.on('connect', (client) => {
    // Queued before the caller's first statement on this connection, so it runs first.
    client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid').then(({ rows }) => {
      try {
        setPriority(rows[0]!.pid, nice);
      } catch {
        // not permitted: normal priority
      }
    }, () => {});
  });
  return pool;
}
