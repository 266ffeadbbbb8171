import { timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface MetricsDeps {
  pool: pg.Pool;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** The embedding version configured (libs/semantics' configuredEmbeddingVersion): rows of another wait to be re-embedded. */
  embeddingVersion?: string | undefined;
}

export interface Metrics {
  registry: Registry;
  /** Counts every request by method, route and status, with its latency; mount first. */
  requests: RequestHandler;
  /** `GET /metrics` in the Prometheus text format. */
  router: Router;
  /** Records how long one phase of an MCP request took (auth, limits, build, handle, standing, tool, charge, commit). */
  observeMcpPhase: (phase: string, seconds: number) => void;
}

// The route pattern, not the path: ids must not become labels.
function routeOf(req: Parameters<RequestHandler>[0]): string {
  const route = (req as { route?: { path?: unknown } }).route?.path;
  if (typeof route === 'string') return `${req.baseUrl}${route}`;
  return 'unmatched';
}

/**
 * Prometheus metrics of one process (prom-client): its HTTP requests with latency histograms and the
 * Node.js defaults, and, read from PostgreSQL at each scrape so every instance reports the same
 * service-wide figures, records accepted / rejected / duplicate, batches by status, the queues' depth
 * and oldest waiting job, attachment download outcomes and credits charged.
 */
export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'loupe_process_' });
  const requestCount = new Counter({ name: 'loupe_http_requests_total', help: 'HTTP requests answered, by method, route and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'loupe_http_request_duration_seconds', help: 'Time to answer an HTTP request, by method and route',
    labelNames: ['method', 'route'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry],
  });

  const mcpPhases = new Histogram({
    name: 'loupe_mcp_request_phase_seconds', help: 'Time spent in each phase of an MCP request, by phase',
    labelNames: ['phase'], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1], registers: [registry],
  });

  const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge) => Promise<void>) =>
    new Gauge({ name, help, labelNames, registers: [registry], async collect() { await collect(this); } });

  gauge('loupe_records_total', 'Records in accepted batches, by outcome (accepted, rejected, duplicate), service-wide', ['outcome'], async (g) => {
    const { rows } = await deps.pool.query<{ accepted: string; rejected: string; duplicate: string }>(
      'SELECT COALESCE(sum(accepted_count), 0) AS accepted, COALESCE(sum(rejected_count), 0) AS rejected, COALESCE(sum(duplicate_count), 0) AS duplicate FROM batches',
    );
    g.reset();
    for (const outcome of ['accepted', 'rejected', 'duplicate'] as const) g.set({ outcome }, Number(rows[0]![outcome]));
  });
  gauge('loupe_batches', 'Batches by status, service-wide', ['status'], async (g) => {
    const { rows } = await deps.pool.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM batches GROUP BY status');
    g.reset();
    for (const status of ['LANDING', 'LANDED', 'PROCESSING', 'COMPLETE', 'FAILED']) g.set({ status }, Number(rows.find((r) => r.status === status)?.n ?? 0));
  });
  gauge('loupe_attachment_downloads', 'Attachments to download, by status, service-wide', ['status'], async (g) => {
    const { rows } = await deps.pool.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM attachments GROUP BY status');
    g.reset();
    for (const r of rows) g.set({ status: r.status }, Number(r.n));
  });
  gauge('loupe_queue_jobs', 'Jobs waiting (created or retry) and running (active), by queue', ['queue', 'state'], async (g) => {
    const { rows } = await deps.pool.query<{ name: string; state: string; n: string }>(
      `SELECT name, state, count(*) AS n FROM pgboss.job WHERE state IN ('created', 'retry', 'active') GROUP BY name, state`,
    ).catch(() => ({ rows: [] as { name: string; state: string; n: string }[] }));
    g.reset();
    for (const r of rows) g.set({ queue: r.name, state: r.state }, Number(r.n));
  });
  gauge('loupe_queue_oldest_waiting_seconds', 'Age of the oldest job waiting to start, by queue', ['queue'], async (g) => {
    const { rows } = await deps.pool.query<{ name: string; age: string }>(
      `SELECT name, EXTRACT(EPOCH FROM now() - min(start_after)) AS age FROM pgboss.job
        WHERE state IN ('created', 'retry') AND start_after <= now() GROUP BY name`,
    ).catch(() => ({ rows: [] as { name: string; age: string }[] }));
    g.reset();
    for (const r of rows) g.set({ queue: r.name }, Math.max(0, Number(r.age)));
  });
  gauge('loupe_search_backlog', 'Work waiting before what was stored is searchable by meaning or grouped: sources not yet embedded, signals not yet placed in an opportunity', ['kind'], async (g) => {
    const { rows } = await deps.pool.query<{ sources: string; signals: string }>(
      `SELECT (SELECT count(*) FROM source_semantics WHERE pending) AS sources, (SELECT count(*) FROM signals WHERE cluster_pending) AS signals`,
    );
    g.reset();
    g.set({ kind: 'sources_not_embedded' }, Number(rows[0]!.sources));
    g.set({ kind: 'signals_not_placed' }, Number(rows[0]!.signals));
  });
  if (deps.embeddingVersion) {
    const version = deps.embeddingVersion;
    gauge('loupe_embeddings_left', 'Rows not yet embedded with the configured model (EMBEDDINGS_MODEL or the built-in word vectors): new, or embedded with another model and re-embedded in the background, by kind (sources, signals), service-wide', ['kind'], async (g) => {
      const { rows } = await deps.pool.query<{ sources: string; signals: string }>(
        `SELECT (SELECT count(*) FROM source_semantics WHERE pending OR version IS DISTINCT FROM $1) AS sources,
                (SELECT count(*) FROM signals WHERE embedding_version IS DISTINCT FROM $1) AS signals`,
        [version],
      );
      g.reset();
      g.set({ kind: 'sources' }, Number(rows[0]!.sources));
      g.set({ kind: 'signals' }, Number(rows[0]!.signals));
    });
  }
  gauge('loupe_credits_charged_total', 'Credits charged, by what used them (records, tool calls), service-wide', ['kind'], async (g) => {
    const { rows } = await deps.pool.query<{ kind: string; credits: string }>(
      `SELECT CASE WHEN tool IS NULL THEN 'records' ELSE 'tool_calls' END AS kind, COALESCE(-sum(amount), 0) AS credits
         FROM credit_ledger WHERE kind = 'charge' GROUP BY 1`,
    );
    g.reset();
    for (const kind of ['records', 'tool_calls']) g.set({ kind }, Number(rows.find((r) => r.kind === kind)?.credits ?? 0));
  });

  const requests: RequestHandler = (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = routeOf(req);
      requestCount.inc({ method: req.method, route, status: String(res.statusCode) });
      latency.observe({ method: req.method, route }, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };

  const router = Router();
  router.get('/metrics', async (req, res, next) => {
    try {
      if (deps.token) {
        const given = Buffer.from(/^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '');
        const expected = Buffer.from(deps.token);
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          res.setHeader('www-authenticate', 'Bearer realm="metrics"');
          return void res.status(401).json({ error: 'UNAUTHORIZED', message: 'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>' });
        }
      }
      res.setHeader('content-type', registry.contentType);
      res.send(await registry.metrics());
    } catch (error) {
      next(error);
    }
  });
  return { registry, requests, router, observeMcpPhase: (phase, seconds) => mcpPhases.observe({ phase }, seconds) };
}
