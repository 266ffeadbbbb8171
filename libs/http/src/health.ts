import { Router } from 'express';
import type { Drain } from './drain';

export interface ReadinessCheck {
  /** Resolves to named checks; any value other than 'ok' makes the service not ready. */
  (): Promise<Record<string, string>>;
}

/**
 * `GET /healthz`: the process is up. `GET /readyz`: every check passes (200) or not (503), and 503
 * "draining" once shutdown has begun, so a load balancer stops sending before the server stops accepting.
 */
export function healthRouter(ready: ReadinessCheck, drain?: Drain): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) });
  });
  router.get('/readyz', async (_req, res) => {
    if (drain?.draining) {
      res.status(503).json({ status: 'draining', checks: { shutdown: 'in progress' } });
      return;
    }
    let checks: Record<string, string>;
    try {
      checks = await ready();
    } catch (error) {
      checks = { error: (error as Error).message };
    }
    const ok = Object.values(checks).every((v) => v === 'ok');
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not_ready', checks });
  });
  return router;
}

/** The standard readiness of every app: the database answers and every migration is applied. */
export function databaseReadiness(pool: { query(sql: string): Promise<unknown> }, migrationsApplied: () => Promise<boolean>): ReadinessCheck {
  return async () => {
    const checks: Record<string, string> = {};
    try {
      await pool.query('SELECT 1');
      checks.database = 'ok';
      checks.migrations = (await migrationsApplied()) ? 'ok' : 'pending';
    } catch (error) {
      checks.database = `unreachable: ${(error as Error).message}`;
      checks.migrations = 'unknown';
    }
    return checks;
  };
}
