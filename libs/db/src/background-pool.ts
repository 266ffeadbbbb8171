import { setPriority } from 'node:os';
import type pg from 'pg';
import { createPool } from './pool';

/** How often the pool's new backends are found and given their priority. */
const RENICE_EVERY_MS = 1_000;
/** The application name the pool's connections carry, by which their backends are found. */
export const BACKGROUND_APPLICATION = 'loupe-background';

/**
 * A pool for background work (the worker inside `npm start`) whose PostgreSQL backends run at a lower CPU
 * priority (`nice`), so on a small machine the statements that answer people (searches, pages) keep their
 * share while records are processed. Only for a server on this machine (the embedded one): its backends
 * (found by application name, every second) are renice'd by pid; where that is not allowed, they keep
 * their priority. A new connection runs at normal priority until it is found.
 */
export function createBackgroundPool(connectionString: string, max: number, nice: number): pg.Pool {
  const url = new URL(connectionString);
  url.searchParams.set('application_name', BACKGROUND_APPLICATION);
  const pool = createPool(url.toString(), max);
  if (nice <= 0) return pool;
  const done = new Set<number>();
  const renice = async () => {
    const { rows } = await pool.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [BACKGROUND_APPLICATION]);
    for (const { pid } of rows) {
      if (done.has(pid)) continue;
      done.add(pid);
      try {
        setPriority(pid, nice);
      } catch {
        // not permitted (or gone): normal priority
      }
    }
  };
  const timer = setInterval(() => void renice().catch(() => {}), RENICE_EVERY_MS);
  timer.unref();
  const end = pool.end.bind(pool);
  pool.end = (async () => {
    clearInterval(timer);
    return end();
  }) as typeof pool.end;
  return pool;
}
