/**
 * Companies and impact at scale (issue 44): "a workspace of 100,000 signals and 10,000 companies:
 * get_opportunities sorted by revenue with a segment filter answers in under 150 ms p99; re-resolving
 * after importing 10,000 companies finishes in under a minute without blocking the event loop".
 * For each size in BENCH_IMPACT_SIGNALS, a workspace is filled in bulk (SQL): the signals (speakers at
 * 12,000 domains, 50 signals to an opportunity) first, then the CRM import (10,000 companies with ARR,
 * segment, plan, stage and renewal, one domain each; 10,000 people, linked to companies), as a late import
 * does. Then the re-resolution the worker runs (resolveWorkspaceCompanies) is timed with the event loop's
 * longest stall, and listOpportunities, what get_opportunities calls, BENCH_IMPACT_CALLS times per query.
 *
 *   npx tsx tools/bench/impact.ts     BENCH_IMPACT_SIGNALS (default 1000,10000,100000), BENCH_IMPACT_CALLS (default 200)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { freePort, openDatabase } from '@loupe/db';
import { ensureSignalTypes, listOpportunities, resolveWorkspaceCompanies, type OpportunityFilter, type OpportunitySort } from '@loupe/evidence';
import { systemClock } from '@loupe/http';
import { machine, percentile, round } from './lib';

const SIZES = (process.env.BENCH_IMPACT_SIGNALS ?? '1000,10000,100000').split(',').map(Number);
const CALLS = Number(process.env.BENCH_IMPACT_CALLS ?? 200);
const COMPANIES = 10_000;

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-impact-'));
const t = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir, embeddedPgPort: await freePort(), poolSize: 8 });
const pool = t.pool;
const rows: string[] = [];

for (const size of SIZES) {
  const ws = `ws_bench_impact_${size}`;
  const prod = `prod_bench_impact_${size}`;
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

  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const resolveStarted = performance.now();
  const resolved = await resolveWorkspaceCompanies(pool, ws, systemClock);
  const resolveMs = performance.now() - resolveStarted;
  loop.disable();

  const queries: Array<[string, OpportunitySort, OpportunityFilter]> = [
    ['revenue, segment filter', 'revenue', { segment: 'smb' }],
    ['revenue', 'revenue', {}],
    ['evidence', 'evidence', {}],
    ['growth', 'growth', {}],
    ['revenue, one company', 'revenue', { companyIds: [`${ws}_cmp_42`] }],
  ];
  const timings: string[] = [];
  for (const [name, sort, filter] of queries) {
    const ms: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const s = performance.now();
      await listOpportunities(pool, ws, prod, { limit: 25, offset: 0 }, { sort, filter, now: new Date() });
      ms.push(performance.now() - s);
    }
    ms.sort((a, b) => a - b);
    timings.push(`${name}: p50 ${round(percentile(ms, 50), 1)} ms, p99 ${round(percentile(ms, 99), 1)} ms`);
  }
  rows.push(`| ${size.toLocaleString('en-US')} | ${resolved.changed.toLocaleString('en-US')} | ${Math.round(resolveMs).toLocaleString('en-US')} ms | ${round(loop.max / 1e6, 1)} ms | ${timings.join('; ')} |`);
  console.log(rows.at(-1));
}

console.log(`\nCompanies and impact (${COMPANIES.toLocaleString('en-US')} companies and people, ${CALLS} calls a query) on ${machine()}`);
console.log('| signals | resolved | re-resolution | event loop max | listOpportunities (get_opportunities\' query), 25 a page |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(r);
await t.close();
await rm(dataDir, { recursive: true, force: true });
