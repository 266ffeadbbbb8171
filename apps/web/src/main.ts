import { createMetrics } from '@loupe/metrics';
import { createStorage } from '@loupe/storage';
import { baseUrl, loadConfig, productionWarnings } from '@loupe/config';
import { migrationsApplied, migrationsDir, openDatabase } from '@loupe/db';
import { appShell, createDrain, createLogger, createPerIpLimiter, databaseReadiness, healthRouter, listen, systemClock } from '@loupe/http';
import { createBoss, enqueue, ensureQueues, QUEUES } from '@loupe/jobs';
import { createMailer } from '@loupe/mail';
import { createWebApp } from './app';

// The console alone (behind a proxy that routes / and /account here, /account/sign-in, /oauth and
// /auth/idp to the authorization server and /api/mcp to the MCP server, on one public host).
const config = loadConfig();
const log = createLogger(config.logLevel, { app: 'web' });
const drain = createDrain();
for (const warning of productionWarnings(config)) log.warn({ setting: warning.setting }, warning.message);
const database = await openDatabase({
  databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedPgPort: config.embeddedPgPort, poolSize: config.dbPoolSize,
});
const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, pool: database.pool, log });
// The evidence pages queue a product's opportunities update after a person edits a signal, and the
// Privacy page queues erasures (the worker does both).
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
  a.use(createWebApp({
    pool: database.pool, db: database.db, clock: systemClock, log, mailer, baseUrl: () => url, servicePrefix: config.servicePrefix,
    scheduleRecompute: async (workspaceId, productId) => void (await enqueue(boss, QUEUES.recomputeOpportunities, { workspaceId, productId })),
    boss,
    storage: createStorage(config),
    // The authorization server's SMTP receiver takes the projects' forwarding addresses (issue 45).
    inboundMailDomain: config.replies?.smtp ? config.replies.domain : undefined,
  }));
}, { trustedProxies: config.trustedProxies, perIp: createPerIpLimiter(database.pool, systemClock, config.perIpLimitPerMinute) });
const server = await listen(app, config.port, config.host, { requestTimeoutMs: config.requestTimeoutMs });
url = baseUrl(config, server.port);
log.info({ url }, 'web listening');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await drain.begin(config.shutdownDrainMs);
    await server.close(config.shutdownTimeoutMs);
    await boss.stop({ graceful: true, close: true });
    await database.close();
    process.exit(0);
  });
}
