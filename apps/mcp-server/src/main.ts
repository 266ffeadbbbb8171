import { createMetrics } from '@loupe/metrics';
import { baseUrl, loadConfig, productionWarnings } from '@loupe/config';
import { migrationsApplied, migrationsDir, openDatabase } from '@loupe/db';
import { appShell, createDrain, createLogger, createPerIpLimiter, databaseReadiness, healthRouter, listen, systemClock } from '@loupe/http';
import { createBoss, ensureQueues } from '@loupe/jobs';
import { createSafeFetch } from '@loupe/safe-fetch';
import { createThirdPartyGateway } from '@loupe/third-party-mcp';
import { configuredEmbeddingVersion, startSemanticsThread } from '@loupe/semantics';
import { createSemanticSearch } from '@loupe/sources';
import { createMcpApp, MCP_PATH } from './app';

// The MCP endpoint alone (behind a proxy that routes /api/mcp and /.well-known/oauth-protected-resource here
// and the OAuth paths to the auth server, on one public host); sources it adds are processed by any worker.
const config = loadConfig();
const log = createLogger(config.logLevel, { app: 'mcp-server' });
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
const metrics = createMetrics({ pool: database.pool, token: config.metricsToken, embeddingVersion: configuredEmbeddingVersion(config.embeddings) });
const semanticSearch = createSemanticSearch({ pool: database.pool, semantics: startSemanticsThread({ embeddings: config.embeddings, priority: 'requests' }) });
const app = appShell(log, (a) => {
  a.use(metrics.requests);
  a.use(metrics.router);
  a.use(healthRouter(databaseReadiness(database.pool, () => migrationsApplied(database.pool, migrationsDir)), drain));
  a.use(createMcpApp({
    baseUrl: () => url, pool: database.pool, db: database.db, clock: systemClock, log, servicePrefix: config.servicePrefix,
    services: { boss, semanticSearch },
    thirdParty: createThirdPartyGateway({ pool: database.pool, safeFetch: createSafeFetch({ allowLoopback: config.fetchAllowLoopback }), log }),
    observePhase: metrics.observeMcpPhase,
  }));
}, { trustedProxies: config.trustedProxies, perIp: createPerIpLimiter(database.pool, systemClock, config.perIpLimitPerMinute), perIpDeferredPaths: [MCP_PATH] });
const server = await listen(app, config.port, config.host, { requestTimeoutMs: config.requestTimeoutMs });
url = baseUrl(config, server.port);
log.info({ url }, 'mcp-server listening');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await drain.begin(config.shutdownDrainMs);
    await server.close(config.shutdownTimeoutMs);
    semanticSearch.close();
    await boss.stop({ graceful: true, close: true });
    await database.close();
    process.exit(0);
  });
}
