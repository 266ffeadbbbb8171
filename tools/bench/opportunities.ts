/**
 * Opportunities at volume, against the service as `npm start` runs it: a product is seeded with N signals
 * (1,000 / 10,000 / 100,000 by default: the 7,500 CLINC150 texts, each said again by other customers
 * as the count grows, written straight into the database; then one add_signals starts the worker), and the bench times
 *   - the backfill: every signal embedded and the product clustered from nothing;
 *   - one add_signals of 100 new signals until every one is placed in an opportunity (incremental);
 *   - the full re-clustering that follows once the product is quiet (opportunities.settle, read from pg-boss);
 * while /healthz is asked every 20 ms (its p99 and max), and the service's memory (RSS) is sampled.
 *
 *   npm run bench:opportunities      (BENCH_SIGNALS=1000,10000,100000)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApiKey } from '@loupe/api-keys';
import { grantCredits } from '@loupe/credits';
import { newId } from '@loupe/db';
import { ensureSignalTypes } from '@loupe/evidence';
import { readLabelledCsv } from '../eval/metrics';
import { benchTenant, machine, percentile, round, sampleHealth, startBenchService, type BenchTarget } from './lib';

export interface OpportunitiesScale {
  signals: number;
  backfillSeconds: number;
  addHundredToPlacedSeconds: number;
  reclusterSeconds: number | null;
  opportunities: number;
  largestShare: number;
  healthzP99Ms: number;
  healthzMaxMs: number;
  rssMb: number;
}

export interface OpportunitiesFigures {
  machine: string;
  scales: OpportunitiesScale[];
}


async function texts(): Promise<string[]> {
  const dir = path.resolve(import.meta.dirname, '../../../shared/data');
  const rows = [
    ...readLabelledCsv(await readFile(path.join(dir, 'clinc150-test.csv'), 'utf8')),
    ...readLabelledCsv(await readFile(path.join(dir, 'clinc150-val.csv'), 'utf8')),
  ];
  return rows.map((r) => r.text);
}

async function rssMb(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return round(kb / 1024);
}

async function waitPlaced(service: BenchTarget, productId: string): Promise<void> {
  for (;;) {
    const { rows } = await service.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM signals WHERE product_id = $1 AND cluster_pending', [productId]);
    if (rows[0]!.n === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface JobRow {
  name: string;
  state: string;
  retry_count: number;
  created_on: Date;
  started_on: Date;
  completed_on: Date;
  output: { reclustered?: boolean; phases?: Record<string, number> } | null;
}

/** The product's completed opportunity jobs, oldest first. */
async function productJobs(service: BenchTarget, productId: string): Promise<JobRow[]> {
  const { rows } = await service.pool.query<JobRow>(
    `SELECT name, state, retry_count, created_on, started_on, completed_on, output FROM pgboss.job
      WHERE name IN ('opportunities.settle', 'opportunities.recompute') AND data->>'productId' = $1 AND state IN ('completed', 'failed', 'retry')
      ORDER BY created_on`,
    [productId],
  );
  return rows;
}

async function runScale(service: BenchTarget, corpus: string[], n: number): Promise<OpportunitiesScale> {
  const tenant = await benchTenant(service, 0);
  await grantCredits(service.pool, tenant.workspaceId, 100_000, `bench-${Date.now()}`);
  await ensureSignalTypes(service.pool, tenant.workspaceId);
  const { rows: types } = await service.pool.query<{ id: string }>("SELECT id FROM signal_types WHERE workspace_id = $1 AND key = 'feedback'", [tenant.workspaceId]);
  const sources = Array.from({ length: Math.ceil(n / corpus.length) + 1 }, () => newId('src'));
  for (const src of sources) {
    await service.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call', now(), 'ready')`,
      [src, tenant.workspaceId, tenant.productId],
    );
  }
  for (let at = 0; at < n; at += 10_000) {
    const count = Math.min(10_000, n - at);
    const rows = Array.from({ length: count }, (_, k) => {
      const i = at + k;
      const text = corpus[i % corpus.length]!;
      return { id: newId('sig'), src: sources[Math.floor(i / corpus.length)]!, text, hash: `${i}`, who: `customer${i % 997}@company${i % 211}.com` };
    });
    await service.pool.query(
      `INSERT INTO signals (id, workspace_id, product_id, source_id, type_id, title, content, who_said_it, content_hash, company, created_at, updated_at)
       SELECT x.id, $1, $2, x.src, $3, left(x.text, 200), x.text, x.who, x.hash, split_part(x.who, '@', 2), now(), now()
         FROM jsonb_to_recordset($4::jsonb) AS x(id text, src text, text text, hash text, who text)`,
      [tenant.workspaceId, tenant.productId, types[0]!.id, JSON.stringify(rows)],
    );
  }
  const { key } = await createApiKey(service.db, { workspaceId: tenant.workspaceId, name: 'bench', permissions: ['mcp:read', 'mcp:write'], defaultProductId: tenant.productId, servicePrefix: 'loupe_' });
  const client = new Client({ name: 'loupe-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  const add = async (items: string[]) => {
    const r = await client.callTool({ name: 'add_signals', arguments: { source_id: sources[sources.length - 1], signals: items.map((t) => ({ type: 'feedback', title: t.slice(0, 200), content: t })) } });
    if (r.isError) throw new Error(JSON.stringify(r.content));
  };
  const stopProbe = sampleHealth(service.url);
  let peak = 0;
  const sampler = setInterval(() => void rssMb(service.pid).then((mb) => (peak = Math.max(peak, mb))), 500);
  try {
    let t = performance.now();
    await add([`${corpus[0]} (first of the backfill)`]);
    await waitPlaced(service, tenant.productId);
    const backfillSeconds = round((performance.now() - t) / 1000, 1);
    // Let a settle of the backfill (if any) pass, then time 100 new signals.
    await new Promise((r) => setTimeout(r, 1_000));
    const before = new Date();
    t = performance.now();
    await add(Array.from({ length: 100 }, (_, i) => `${corpus[(i * 37) % corpus.length]} (new ${i})`));
    await waitPlaced(service, tenant.productId);
    const addHundredToPlacedSeconds = round((performance.now() - t) / 1000, 2);
    // The settle job (a full re-clustering) comes ~20 s later for products up to SETTLE_MAX signals;
    // past that the full re-clustering timed is the backfill's (its read, cluster and write phases).
    const deadline = Date.now() + (n <= 20_000 ? 180_000 : 0);
    let reclusterSeconds: number | null = null;
    for (;;) {
      const jobs = await productJobs(service, tenant.productId);
      const full = jobs.filter((j) => j.state === 'completed' && j.output?.reclustered);
      const settled = full.find((j) => j.started_on >= before);
      if (settled || Date.now() >= deadline) {
        const job = settled ?? full[full.length - 1];
        const p = job?.output?.phases ?? {};
        reclusterSeconds = job ? round(((p.read ?? 0) + (p.cluster ?? 0) + (p.write ?? 0)) / 1000, 1) : null;
        for (const j of jobs) {
          const started = j.started_on?.getTime() ?? NaN;
          console.error(`  ${j.name} ${j.state} (retries ${j.retry_count}) queued ${j.created_on.toISOString()} waited ${round((started - j.created_on.getTime()) / 1000, 1)} s ran ${round(((j.completed_on?.getTime() ?? NaN) - started) / 1000, 1)} s ${JSON.stringify(j.output)}`);
        }
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const { rows: opp } = await service.pool.query<{ k: number; largest: number }>(
      'SELECT count(*)::int AS k, max(evidence_count)::int AS largest FROM opportunities WHERE product_id = $1',
      [tenant.productId],
    );
    const health = await stopProbe();
    return {
      signals: n, backfillSeconds, addHundredToPlacedSeconds, reclusterSeconds, opportunities: opp[0]!.k,
      largestShare: round((opp[0]!.largest / (n + 101)) * 100, 1), healthzP99Ms: round(percentile(health, 99), 1), healthzMaxMs: round(health[health.length - 1] ?? 0, 1), rssMb: peak,
    };
  } finally {
    clearInterval(sampler);
    await client.close();
  }
}

export async function runOpportunitiesBench(): Promise<OpportunitiesFigures> {
  const corpus = await texts();
  const scales = (process.env.BENCH_SIGNALS ?? '1000,10000,100000').split(',').map(Number);
  const service = await startBenchService();
  try {
    const out: OpportunitiesScale[] = [];
    for (const n of scales) {
      const r = await runScale(service, corpus, n);
      console.error(`bench:opportunities ${n} signals done`);
      out.push(r);
    }
    return { machine: machine(), scales: out };
  } finally {
    await service.close();
  }
}

export function printOpportunities(f: OpportunitiesFigures): void {
  console.log(`\nOpportunities (${f.machine})`);
  console.log('| signals in the product | backfill (embed + cluster) s | add_signals of 100 → placed s | full re-clustering s | opportunities | largest | /healthz p99 ms | /healthz max ms | service RSS MB |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const s of f.scales) {
    console.log(`| ${s.signals.toLocaleString('en')} | ${s.backfillSeconds} | ${s.addHundredToPlacedSeconds} | ${s.reclusterSeconds ?? '—'} | ${s.opportunities} | ${s.largestShare} % | ${s.healthzP99Ms} | ${s.healthzMaxMs} | ${s.rssMb} |`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) printOpportunities(await runOpportunitiesBench());
