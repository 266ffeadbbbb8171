/**
 * What the MCP rate limits cost: the same MCP endpoint twice on one database, once with the
 * per-IP and per-credential limits as deployed and once without, alternating rounds of
 * `tools/call get_products` (authenticated by key, charged a credit). Prints throughput and
 * latency of both, their ratio, and the time of one limiter check on its own.
 *
 *   npm run bench:mcp-limits            (BENCH_SECONDS per round, default 5; BENCH_CLIENTS, default 8)
 *
 * BENCH_ONLY=ip or credential keeps only that limit on the "with" side, to tell their costs apart;
 * BENCH_ONLY=none makes both sides the same (the bench's own noise).
 */
import { createApiKey } from '@loupe/api-keys';
import { createPool } from '@loupe/db';
import { grantCredits } from '@loupe/credits';
import { appShell, createLogger, createPerIpLimiter, createRateLimiter, listen, systemClock, type RateLimiter } from '@loupe/http';
import { createMcpApp, CREDENTIAL_LIMIT, MCP_PATH } from '@loupe/mcp-server';
import { createProduct, createWorkspace } from '@loupe/workspaces';
import { benchTenant, machine, percentile, startBenchService } from './lib';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const clients = Number(process.env.BENCH_CLIENTS ?? 8);
const rounds = 4;

const unlimited: RateLimiter = { take: async () => ({ allowed: true, limit: Infinity, remaining: Infinity, retryAfterSeconds: 1 }) };

async function main() {
  const service = await startBenchService();
  try {
    // As many connections as the service's default pool (DB_POOL_SIZE 10) and then some, so neither side waits for one.
    const pool = createPool(service.databaseUrl, 20);
    await benchTenant(service, 0); // warms the database connection and the schema
    const ws = await createWorkspace(service.db, { name: 'mcp bench' });
    const product = await createProduct(service.db, ws.id, { name: 'Bench' });
    await grantCredits(pool, ws.id, 100_000_000, 'bench', 'bench credits');
    const log = createLogger('silent');
    const start = async (limited: boolean) => {
      let url = '';
      const app = appShell(log, (a) => {
        a.use(createMcpApp({
          baseUrl: () => url, pool, db: service.db, clock: systemClock, log, servicePrefix: 'loupe_',
          // Limits as deployed but high enough never to refuse: what is measured is their cost.
          credentialLimiter: limited && !['ip', 'none'].includes(process.env.BENCH_ONLY ?? '') ? createRateLimiter(pool, { ...CREDENTIAL_LIMIT, limit: 1e12, clock: systemClock }) : unlimited,
        }));
      }, limited && !['credential', 'none'].includes(process.env.BENCH_ONLY ?? '') ? { perIp: createPerIpLimiter(pool, systemClock, 1e12), perIpDeferredPaths: [MCP_PATH] } : {});
      const server = await listen(app, 0, '127.0.0.1', { requestTimeoutMs: 30_000 });
      url = `http://127.0.0.1:${server.port}`;
      return { url, server };
    };
    const [withLimits, without] = [await start(true), await start(false)];
    const keys = await Promise.all(Array.from({ length: clients }, (_, i) => createApiKey(service.db, {
      workspaceId: ws.id, name: `bench ${i}`, permissions: ['mcp:read'], defaultProductId: product.id, servicePrefix: 'loupe_',
    }).then((k) => k.key)));
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_products', arguments: {} } });
    const run = async (url: string) => {
      const latencies: number[] = [];
      const until = performance.now() + seconds * 1000;
      let errors = 0;
      await Promise.all(keys.map(async (key) => {
        while (performance.now() < until) {
          const t0 = performance.now();
          const res = await fetch(`${url}/api/mcp`, {
            method: 'POST', body,
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
          });
          const text = await res.text();
          if (res.status !== 200 || text.includes('"isError":true')) errors++;
          latencies.push(performance.now() - t0);
        }
      }));
      latencies.sort((a, b) => a - b);
      return { count: latencies.length, errors, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    };
    const totals = { with: { count: 0, errors: 0, p50: [] as number[], p99: [] as number[] }, without: { count: 0, errors: 0, p50: [] as number[], p99: [] as number[] } };
    await run(without.url); // warm-up
    for (let r = 0; r < rounds; r++) {
      const order: Array<['with' | 'without', { url: string }]> = r % 2 ? [['without', without], ['with', withLimits]] : [['with', withLimits], ['without', without]];
      for (const [name, target] of order) {
        const result = await run(target.url);
        const t = totals[name];
        t.count += result.count;
        t.errors += result.errors;
        t.p50.push(result.p50);
        t.p99.push(result.p99);
      }
    }
    const limiter = createRateLimiter(pool, { ...CREDENTIAL_LIMIT, limit: 1e12, clock: systemClock });
    const takes: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t0 = performance.now();
      await limiter.take(`bench:${i % 50}`);
      takes.push(performance.now() - t0);
    }
    takes.sort((a, b) => a - b);
    const rate = (n: number) => n / (rounds * seconds);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(`MCP rate-limit overhead — ${machine()}`);
    console.log(`tools/call get_products by API key, ${clients} clients, ${rounds} alternating rounds of ${seconds} s each, credits charged in both`);
    for (const name of ['with', 'without'] as const) {
      const t = totals[name];
      console.log(`  ${name === 'with' ? 'with limits   ' : 'without limits'}: ${rate(t.count).toFixed(0)} calls/s, p50 ${median(t.p50).toFixed(1)} ms, p99 ${median(t.p99).toFixed(1)} ms, errors ${t.errors}`);
    }
    console.log(`  throughput with / without: ${(totals.with.count / totals.without.count).toFixed(3)}`);
    console.log(`  one limiter check alone: p50 ${percentile(takes, 50).toFixed(2)} ms, p99 ${percentile(takes, 99).toFixed(2)} ms (two per MCP request: per IP and per credential)`);
    await withLimits.server.close(0);
    await without.server.close(0);
    await pool.end();
  } finally {
    await service.close();
  }
}

await main();
