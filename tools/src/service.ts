import { createMetrics } from '@loupe/metrics';
import { baseUrl, type Config } from '@loupe/config';
import { createBackgroundPool, createPrismaClient, migrationsApplied, migrationsDir, openDatabase, type Database, type Pool } from '@loupe/db';
import {
  appShell, createDrain, createInFlight, createLogger, createPacing, createPerIpLimiter, databaseReadiness, healthRouter, listen, systemClock, type Clock, type Listening, type Logger,
} from '@loupe/http';
import { createIngestApp } from '@loupe/ingest-api';
import { createAuthApp, inboundReplyHandler, OAUTH_TOKEN_PATH } from '@loupe/auth-server';
import { createWebApp } from '@loupe/web';
import { createMcpApp, MCP_PATH } from '@loupe/mcp-server';
import { createBoss, enqueue, ensureQueues, QUEUES, type Boss } from '@loupe/jobs';
import { createWorker, type Worker } from '@loupe/worker';
import { configuredEmbeddingVersion, startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { createSemanticSearch, type SemanticSearch } from '@loupe/sources';
import { createForwardingReceiver } from '@loupe/connectors/email';
import { createMailer, startInboundSmtp, type InboundSmtp } from '@loupe/mail';
import { isReplyAddress } from '@loupe/oauth';
import { createSafeFetch } from '@loupe/safe-fetch';
import { createStorage } from '@loupe/storage';
import { createThirdPartyGateway } from '@loupe/third-party-mcp';

/** The longest the in-process worker waits for requests in flight before its next slice of work. */
const YIELD_AT_MOST_MS = 250;

export interface RunningService {
  url: string;
  port: number;
  database: Database;
  boss: Boss;
  log: Logger;
  /** Stop accepting, finish in-flight requests and jobs, close the database, stop the embedded server. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  config: Config;
  log?: Logger;
  clock?: Clock;
}

/**
 * The whole service in one process: every app's routes on one host and port
 * (the OAuth server and the MCP endpoint must share a host), and the worker.
 */
export async function startService({ config, log = createLogger(config.logLevel), clock = systemClock }: ServiceOptions): Promise<RunningService> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    embeddedPgPort: config.embeddedPgPort,
    poolSize: config.dbPoolSize,
    log: (line) => log.trace({ component: 'postgres' }, line),
  });
  if (database.migrationsApplied.length) log.info({ migrations: database.migrationsApplied }, 'migrations applied');
  const boss = createBoss({ connectionString: database.url, supervise: config.workerEnabled });
  boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  let worker: Worker | undefined;
  let searchThread: SemanticsThread | undefined;
  let semanticSearch: SemanticSearch | undefined;
  let inboundSmtp: InboundSmtp | undefined;
  let http: Listening | undefined;
  let workerPool: Pool | undefined;
  const drain = createDrain();
  // The ingestion API's requests are machines' (nobody waits on them): the worker rests for the others.
  const inFlight = createInFlight({ background: (path) => path.startsWith('/api/v1/') });
  const pacing = createPacing({ inFlight, busyShare: config.workerBusyShare, maxWaitMs: YIELD_AT_MOST_MS });
  try {
    await boss.start();
    await ensureQueues(boss, config.jobs);

    let publicUrl = baseUrl(config);
    const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, pool: database.pool, log: log.child({ component: 'mail' }) });
    const metrics = createMetrics({ pool: database.pool, token: config.metricsToken, embeddingVersion: configuredEmbeddingVersion(config.embeddings) });
    const storage = createStorage(config);
    // The MCP server's own semantics thread: query vectors and the in-memory source index (the worker has another).
    searchThread = startSemanticsThread({ embeddings: config.embeddings, priority: 'requests' });
    semanticSearch = createSemanticSearch({ pool: database.pool, semantics: searchThread });
    const app = appShell(log, (a) => {
      a.use(inFlight.middleware);
      a.use(metrics.requests);
      a.use(metrics.router);
          a.use(healthRouter(databaseReadiness(database.pool, () => migrationsApplied(database.pool, migrationsDir)), drain));
      a.use(createIngestApp({ pool: database.pool, boss, clock, servicePrefix: config.servicePrefix, baseUrl: () => publicUrl, storage, log,
        connections: { key: config.connectionsKey, allowLoopback: config.fetchAllowLoopback },
        inboundMailDomain: config.replies?.smtp ? config.replies.domain : undefined }));
      a.use(createMcpApp({
        baseUrl: () => publicUrl, pool: database.pool, db: database.db, clock, log, servicePrefix: config.servicePrefix,
        services: { boss, semanticSearch },
        thirdParty: createThirdPartyGateway({ pool: database.pool, safeFetch: createSafeFetch({ allowLoopback: config.fetchAllowLoopback }), log }),
        observePhase: metrics.observeMcpPhase,
        bodyMemoryBytes: config.mcpBodyMemoryBytes,
      }));
      a.use(createAuthApp({
        pool: database.pool, db: database.db, clock, log, mailer, baseUrl: () => publicUrl, servicePrefix: config.servicePrefix,
        fetchSettings: { allowLoopback: config.fetchAllowLoopback }, identityProviders: config.identityProviders,
        accessTokenTtlSeconds: config.accessTokenTtlSeconds,
        replies: config.replies,
      }));
      a.use(createWebApp({
        pool: database.pool, db: database.db, clock, log, mailer, baseUrl: () => publicUrl, servicePrefix: config.servicePrefix,
        scheduleRecompute: async (workspaceId, productId) => void (await enqueue(boss, QUEUES.recomputeOpportunities, { workspaceId, productId })),
        boss,
        semanticSearch,
        storage,
        inboundMailDomain: config.replies?.smtp ? config.replies.domain : undefined,
      }));
    }, { trustedProxies: config.trustedProxies, perIp: createPerIpLimiter(database.pool, clock, config.perIpLimitPerMinute), perIpDeferredPaths: [MCP_PATH, OAUTH_TOKEN_PATH] });

    if (config.workerEnabled) {
      // On the embedded server, the worker's statements run at a lower CPU priority than the requests'.
      workerPool = database.embedded ? createBackgroundPool(database.url, config.workerConcurrency * 2 + 2, config.workerDbNice) : undefined;
      const workerDb = workerPool ? { pool: workerPool, db: createPrismaClient(workerPool) } : { pool: database.pool, db: database.db };
      // The worker shares this event loop and these cores with the requests: before each slice of work it rests
      // while people and AI clients are answered (WORKER_BUSY_SHARE), and lets the requests in flight finish first.
      worker = createWorker({ ...workerDb, boss, clock, log: log.child({ component: 'worker' }), config, storage, yieldToRequests: pacing.beforeSlice });
      await worker.start();
    }
    http = await listen(app, config.port, config.host, { requestTimeoutMs: config.requestTimeoutMs });
    publicUrl = baseUrl(config, http.port);
    log.info({ url: publicUrl }, 'listening');
    if (!config.smtpUrl) log.info('no SMTP_URL: mail goes to the local outbox, and the log shows sign-in codes (only those) so you can sign in on this machine');
    if (config.replies?.smtp) {
      const { domain, smtp } = config.replies;
      const handle = inboundReplyHandler({ pool: database.pool, clock, mailer, log: log.child({ component: 'inbound-mail' }), domain });
      // Email forwarding (issue 45): fwd+<token>@<domain> addresses of projects, beside the revoke+ reply addresses.
      const forwarding = createForwardingReceiver({ pool: database.pool, boss, storage, clock, log: log.child({ component: 'email-forwarding' }), domain });
      inboundSmtp = await startInboundSmtp({
        host: smtp.host, port: smtp.port, maxBytes: smtp.maxBytes, log,
        accepts: (address) => isReplyAddress(address, domain) || forwarding.accepts(address),
        onMessage: async (mail, raw, envelope) => {
          if (envelope.to.some((a) => forwarding.isForwardingAddress(a))) await forwarding.receive(mail, raw, envelope.to);
          else await handle(mail);
        },
      });
      log.info({ host: smtp.host, port: inboundSmtp.port, domain }, 'receiving replies to confirmation mails and forwarded mail over SMTP');
    }
  } catch (error) {
    await inboundSmtp?.close().catch(() => {});
    await http?.close(0);
    await worker?.stop().catch(() => {});
    await workerPool?.end().catch(() => {});
    semanticSearch?.close();
    await searchThread?.close().catch(() => {});
    await boss.stop({ graceful: false, close: true }).catch(() => {});
    await database.close();
    throw error;
  }
  const listening = http;
  let closing: Promise<void> | undefined;
  return {
    url: baseUrl(config, listening.port),
    port: listening.port,
    database,
    boss,
    log,
    close() {
      closing ??= (async () => {
        // Readiness off first, while requests are still served: a load balancer stops sending, then the server stops accepting.
        await drain.begin(config.shutdownDrainMs);
        await listening.close(config.shutdownTimeoutMs);
        await inboundSmtp?.close().catch(() => {});
        await worker?.stop();
        await workerPool?.end().catch(() => {});
        semanticSearch?.close();
        await searchThread?.close().catch(() => {});
        await boss.stop({ graceful: true, close: true, timeout: config.shutdownTimeoutMs });
        await database.close();
      })();
      return closing;
    },
  };
}
