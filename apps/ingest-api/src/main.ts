import { createMetrics } from '@loupe/metrics';
import { baseUrl, loadConfig, productionWarnings } from '@loupe/config';
import { migrationsApplied, migrationsDir, openDatabase } from '@loupe/db';
import { appShell, createDrain, createLogger, createPerIpLimiter, databaseReadiness, healthRouter, listen, systemClock } from '@loupe/http';
import { createBoss, ensureQueues } from '@loupe/jobs';
import { createStorage } from '@loupe/storage';
import { createIngestApp } from './app';

// The ingestion API alone; batches it accepts are processed by any running worker.
const config = loadConfig();
const log = createLogger(config.logLevel, { app: 'ingest-api' });
const drain = createDrain();
for (const warning of productionWarnings(config)) log.warn({ setting: warning.setting }, warning.message);
const database = await openDatabase({
  databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedPgPort: config.embeddedPgPort, poolSize: config.dbPoolSize,
});
const boss = createBoss({ connectionString: database.url, supervise: false });
boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
await boss.start();
await ensureQueues(boss, config.jobs);
let url = baseUrl(config);
const metrics = createMetrics({ pool: database.pool, token: config.metricsToken });
const app = appShell(log, (a) => {
  a.use(metrics.requests);
  a.use(metrics.router);
  a.use(healthRouter(databaseReadiness(database.pool, () => migrationsApplied(database.pool, migrationsDir)), drain));
  a.use(createIngestApp({ pool: database.pool, boss, clock: systemClock, servicePrefix: config.servicePrefix, baseUrl: () => url, storage: createStorage(config),
    connections: { key: config.connectionsKey, allowLoopback: config.fetchAllowLoopback },
    // The authorization server's SMTP receiver takes the forwarding addresses (issue 45).
    inboundMailDomain: config.replies?.smtp ? config.replies.domain : undefined }));
}, { trustedProxies: config.trustedProxies, perIp: createPerIpLimiter(database.pool, systemClock, config.perIpLimitPerMinute) });
const server = await listen(app, config.port, config.host, { requestTimeoutMs: config.requestTimeoutMs });
url = baseUrl(config, server.port);
log.info({ url }, 'ingest-api listening');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await drain.begin(config.shutdownDrainMs);
    await server.close(config.shutdownTimeoutMs);
    await boss.stop({ graceful: true, close: true });
    await database.close();
    process.exit(0);
  });
}
