/**
 * Companies and impact at scale (issue 44): "a workspace of 100,000 signals and 10,000 companies:
 * get_opportunities sorted by revenue with a segment filter answers in under 150 ms p99; re-resolving
 * after importing 10,000 companies finishes in under a minute without blocking the event loop".
 * For each size in BENCH_IMPACT_SIGNALS, a workspace is filled in bulk (SQL): the signals (speakers at
 * 12,000 domains, 50 signals to an opportunity) first, then the CRM import (10,000 companies with ARR,
 * segment, plan, stage and renewal, one domain each; 10,000 people, linked to companies), as a late import
 * does. Then the re-resolution the worker runs (resolveWorkspaceCompanies) is timed with the event loop's
 * longest stall (what /healthz, served by the same process, would wait at most), and the reads of
 * get_opportunities (listOpportunities, then opportunityGrowth of the page) BENCH_IMPACT_CALLS times per query.
 *
 *   npm run bench:impact     BENCH_IMPACT_SIGNALS (default 1000,10000,100000), BENCH_IMPACT_CALLS (default 200)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { freePort, openDatabase } from '@loupe/db';
import type pg from 'pg';
import { ensureSignalTypes, listOpportunities, opportunityGrowth, resolveWorkspaceCompanies, type OpportunityFilter, type OpportunitySort } from '@loupe/evidence';
import { systemClock } from '@loupe/http';
import { machine, percentile, round } from './lib';

const COMPANIES = 10_000;

export interface ImpactScale {
  signals: number;
  /** Signals whose company changed in the re-resolution. */
  resolved: number;
  resolveMs: number;
  /** The event loop's longest stall during the re-resolution. */
  stallMs: number;
  /** get_opportunities' reads, 25 a page: p50 and p99 in ms. */
  queries: Array<{ name: string; p50: number; p99: number }>;
}
export interface ImpactFigures { machine: string; companies: number; calls: number; scales: ImpactScale[] }

async function fill(pool: pg.Pool, ws: string, prod: string, size: number) {
  await pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Bench')", [ws]);
  await pool.query("INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, 'Bench app')", [prod, ws]);
  await ensureSignalTypes(pool, ws);
  await pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status)
     SELECT $1 || '_src_' || i, $1, $2, '{}', 'call', 'evidence', 'Call ' || i, now() - (i || ' minutes')::interval, 'ready' FROM generate_series(1, $3) i`,
    [ws, prod, Math.ceil(size / 10)],
  );
  await pool.query(
    `INSERT INTO signals (id, workspace_id, product_id, source_id, type_id, title, content, who_said_it, participant_id, content_hash, created_at, updated_at, company, cluster_pending)
     SELECT 'sig_' || $1 || '_' || lpad(i::text, 7, '0'), $1, $2, $1 || '_src_' || (1 + i % $4), (SELECT id FROM signal_types WHERE workspace_id = $1 ORDER BY key LIMIT 1),
            'Signal ' || i, 'Content ' || i, 'p' || i || '@d' || (i % 12000) || '.com', 'p' || i || '@d' || (i % 12000) || '.com', md5(i::text),
            now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval, 'd' || (i % 12000) || '.com', false
       FROM generate_series(1, $3) i`,
    [ws, prod, size, Math.ceil(size / 10)],
  );
  await pool.query(
    `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at)
     SELECT 'opp_' || $1 || '_' || o, $1, $2, 'Opportunity ' || o, '', 'need', 50, 0, now(), now() FROM generate_series(0, ($3 - 1) / 50) o`,
    [ws, prod, size],
  );
  await pool.query(
    `INSERT INTO opportunity_signals (opportunity_id, signal_id)
     SELECT 'opp_' || $1 || '_' || ((i - 1) / 50), 'sig_' || $1 || '_' || lpad(i::text, 7, '0') FROM generate_series(1, $2) i`,
    [ws, size],
  );
  // The CRM import, after the evidence.
  await pool.query(
    `INSERT INTO companies (id, workspace_id, external_id, name, domains, arr, segment, plan, stage, renewal_date, created_at, updated_at)
     SELECT $1 || '_cmp_' || i, $1, 'crm-' || i, 'Company ' || i, ARRAY['d' || i || '.com'], 1000 + (i * 37) % 200000,
            (ARRAY['enterprise', 'mid-market', 'smb', 'startup'])[1 + i % 4], (ARRAY['free', 'pro', 'business'])[1 + i % 3],
            (ARRAY['trial', 'customer', 'churned'])[1 + i % 3], current_date + (i % 365), now(), now()
       FROM generate_series(0, $2 - 1) i`,
    [ws, COMPANIES],
  );
  await pool.query(`INSERT INTO company_domains (workspace_id, domain, company_id) SELECT $1, 'd' || i || '.com', $1 || '_cmp_' || i FROM generate_series(0, $2 - 1) i`, [ws, COMPANIES]);
  await pool.query(
    `INSERT INTO people (id, workspace_id, external_id, email, company_id, created_at, updated_at)
     SELECT $1 || '_per_' || i, $1, 'person-' || i, 'p' || i || '@d' || (i % 12000) || '.com', $1 || '_cmp_' || ((i * 7) % $2), now(), now()
       FROM generate_series(1, $2) i`,
    [ws, COMPANIES],
  );
  await pool.query('VACUUM ANALYZE');
}

const QUERIES = (ws: string): Array<[string, OpportunitySort, OpportunityFilter]> => [
  ['revenue, segment filter', 'revenue', { segment: 'smb' }],
  ['revenue', 'revenue', {}],
  ['evidence', 'evidence', {}],
  ['growth', 'growth', {}],
  ['revenue, one company', 'revenue', { companyIds: [`${ws}_cmp_42`] }],
];

export async function runImpactBench(): Promise<ImpactFigures> {
  const sizes = (process.env.BENCH_IMPACT_SIGNALS ?? '1000,10000,100000').split(',').map(Number);
  const calls = Number(process.env.BENCH_IMPACT_CALLS ?? 200);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-impact-'));
  const t = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir, embeddedPgPort: await freePort(), poolSize: 8 });
  const pool = t.pool;
  const scales: ImpactScale[] = [];
  try {
    for (const size of sizes) {
      const ws = `ws_bench_impact_${size}`;
      const prod = `prod_bench_impact_${size}`;
      await fill(pool, ws, prod, size);

      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      const resolveStarted = performance.now();
      const resolved = await resolveWorkspaceCompanies(pool, ws, systemClock);
      const resolveMs = performance.now() - resolveStarted;
      loop.disable();

      const queries: ImpactScale['queries'] = [];
      for (const [name, sort, filter] of QUERIES(ws)) {
        const ms: number[] = [];
        for (let i = 0; i < calls; i++) {
          const s = performance.now();
          const now = new Date();
          const page = await listOpportunities(pool, ws, prod, { limit: 25, offset: 0 }, { sort, filter, now });
          await opportunityGrowth(pool, ws, page.items.map((o) => o.id), now);
          ms.push(performance.now() - s);
        }
        ms.sort((a, b) => a - b);
        queries.push({ name, p50: round(percentile(ms, 50), 1), p99: round(percentile(ms, 99), 1) });
      }
      scales.push({ signals: size, resolved: resolved.changed, resolveMs: Math.round(resolveMs), stallMs: round(loop.max / 1e6, 1), queries });
      console.error(`bench:impact ${size} signals done`);
    }
  } finally {
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  return { machine: machine(), companies: COMPANIES, calls, scales };
}

export function printImpact(f: ImpactFigures): void {
  const n = (x: number) => x.toLocaleString('en-US');
  console.log(`\nCompanies and impact (${n(f.companies)} companies and ${n(f.companies)} people imported after the evidence, ${f.calls} calls a query) on ${f.machine}`);
  console.log('| signals | re-resolved | re-resolution | event loop longest stall | get_opportunities\' reads, 25 a page: p50 / p99 ms |');
  console.log('|---|---|---|---|---|');
  for (const s of f.scales) {
    console.log(`| ${n(s.signals)} | ${n(s.resolved)} | ${n(s.resolveMs)} ms | ${s.stallMs} ms | ${s.queries.map((q) => `${q.name}: ${q.p50} / ${q.p99}`).join('; ')} |`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) printImpact(await runImpactBench());
