import { createMetrics } from '@loupe/metrics';
import { baseUrl, loadConfig, productionWarnings } from '@loupe/config';
import { migrationsApplied, migrationsDir, openDatabase } from '@loupe/db';
import { appShell, createDrain, createLogger, createPerIpLimiter, databaseReadiness, healthRouter, listen, systemClock } from '@loupe/http';
import { createForwardingReceiver } from '@loupe/connectors/email';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { createMailer, startInboundSmtp } from '@loupe/mail';
import { createStorage } from '@loupe/storage';
import { isReplyAddress } from '@loupe/oauth';
import { createAuthApp } from './app';
import { inboundReplyHandler } from './inbound-mail';
import { OAUTH_TOKEN_PATH } from './rate-limits';

// The authorization server alone (behind a proxy that routes /oauth, /.well-known/oauth-authorization-server,
// /.well-known/openid-configuration, /auth/idp and /account/sign-in here, /account and / to the web app
// and /api/mcp to the MCP server, on one public host).
const config = loadConfig();
const log = createLogger(config.logLevel, { app: 'auth-server' });
const drain = createDrain();
for (const warning of productionWarnings(config)) log.warn({ setting: warning.setting }, warning.message);
const database = await openDatabase({
  databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedPgPort: config.embeddedPgPort, poolSize: config.dbPoolSize,
});
const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, pool: database.pool, log });
let url = baseUrl(config);
const metrics = createMetrics({ pool: database.pool, token: config.metricsToken });
const app = appShell(log, (a) => {
  a.use(metrics.requests);
  a.use(metrics.router);
  a.use(healthRouter(databaseReadiness(database.pool, () => migrationsApplied(database.pool, migrationsDir)), drain));
  a.use(createAuthApp({
    pool: database.pool, db: database.db, clock: systemClock, log, mailer, baseUrl: () => url, servicePrefix: config.servicePrefix,
    fetchSettings: { allowLoopback: config.fetchAllowLoopback }, identityProviders: config.identityProviders,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    replies: config.replies,
  }));
}, { trustedProxies: config.trustedProxies, perIp: createPerIpLimiter(database.pool, systemClock, config.perIpLimitPerMinute), perIpDeferredPaths: [OAUTH_TOKEN_PATH] });
const server = await listen(app, config.port, config.host, { requestTimeoutMs: config.requestTimeoutMs });
url = baseUrl(config, server.port);
log.info({ url }, 'auth-server listening');
let boss: Boss | undefined;
if (config.replies?.smtp) {
  const { domain, smtp } = config.replies;
  const handle = inboundReplyHandler({ pool: database.pool, clock: systemClock, mailer, log, domain });
  // Forwarded mail (issue 45) lands records, whose processing job goes on the worker's queue.
  boss = createBoss({ connectionString: database.url, supervise: false });
  boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  await boss.start();
  await ensureQueues(boss, config.jobs);
  const forwarding = createForwardingReceiver({ pool: database.pool, boss, storage: createStorage(config), clock: systemClock, log: log.child({ component: 'email-forwarding' }), domain });
  const receiver = await startInboundSmtp({
    host: smtp.host, port: smtp.port, maxBytes: smtp.maxBytes, log,
    accepts: (a) => isReplyAddress(a, domain) || forwarding.accepts(a),
    onMessage: async (m, raw, envelope) => {
      if (envelope.to.some((a) => forwarding.isForwardingAddress(a))) await forwarding.receive(m, raw, envelope.to);
      else await handle(m);
    },
  });
  log.info({ port: receiver.port, domain }, 'receiving replies to confirmation mails and forwarded mail over SMTP');
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await drain.begin(config.shutdownDrainMs);
    await server.close(config.shutdownTimeoutMs);
    await boss?.stop({ graceful: true, close: true });
    await database.close();
    process.exit(0);
  });
}
