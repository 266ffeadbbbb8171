import { loadConfig, productionWarnings } from '@loupe/config';
import { openDatabase } from '@loupe/db';
import { createLogger, systemClock } from '@loupe/http';
import { createBoss, ensureQueues } from '@loupe/jobs';
import { createWorker } from './app';

/** The worker alone: `npx nx run worker:serve`. Stops gracefully on SIGINT and SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, { app: 'worker' });
for (const warning of productionWarnings(config)) log.warn({ setting: warning.setting }, warning.message);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    embeddedPgPort: config.embeddedPgPort,
    poolSize: config.dbPoolSize,
    log: (line) => log.trace({ component: 'postgres' }, line),
  });
  const boss = createBoss({ connectionString: database.url, supervise: true });
  boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  await boss.start();
  await ensureQueues(boss, config.jobs);
  const worker = createWorker({ pool: database.pool, db: database.db, boss, clock: systemClock, log, config });
  await worker.start();

  let closing = false;
  const close = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'stopping');
    await worker.stop();
    await boss.stop({ graceful: true, close: true, timeout: Math.max(config.shutdownTimeoutMs, 1000) });
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void close('SIGINT'));
  process.on('SIGTERM', () => void close('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
