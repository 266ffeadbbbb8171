import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureDatabase, freePort, startEmbeddedPostgres, withDatabase, type RunningPostgres } from '@loupe/db';
import pg from 'pg';
import { startProcess, type Started } from './process';

/** A PostgreSQL server the test controls (stop, start again), with one `loupe` database. */
export interface ControlledPostgres {
  url: string;
  pool: pg.Pool;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function controlledPostgres(): Promise<ControlledPostgres> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-fault-pg-'));
  const port = await freePort();
  const options = { dataDir: path.join(dir, 'cluster'), port };
  let server: RunningPostgres | undefined = await startEmbeddedPostgres(options);
  await ensureDatabase(server.adminUrl, 'loupe');
  const url = withDatabase(server.adminUrl, 'loupe');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {});
  return {
    url,
    pool,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async start() {
      server = await startEmbeddedPostgres(options);
    },
    async destroy() {
      await pool.end().catch(() => {});
      await server?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Short job heartbeats and retries, so a fault's consequences play out within a test. */
export const FAST_JOBS = { JOB_HEARTBEAT_SECONDS: '10', JOB_RETRY_BASE_SECONDS: '1', LOG_LEVEL: 'error' };

/** `npm start` as its own process on the PostgreSQL of `pgUrl`, with a data directory and a port of its own. */
export async function serviceOn(pgUrl: string, env: Record<string, string> = {}): Promise<Started> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-fault-data-'));
  return startProcess({ DATABASE_URL: pgUrl, LOUPE_DEMO: '1', DATA_DIR: dataDir, PORT: String(await freePort()), ...FAST_JOBS, ...env });
}

export interface Demo {
  key: string;
  workspaceId: string;
  productId: string;
  projectId: string;
}

export function demoFrom(output: string): Demo {
  const pick = (label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(output)![1]!;
  return { key: pick('API key'), workspaceId: pick('Workspace'), productId: pick('Product id'), projectId: pick('Project id') };
}

let seq = 0;
export function records(demo: Demo, n: number, extra: Record<string, unknown> = {}) {
  const run = `${process.pid}-${Date.now()}-${seq++}`;
  return Array.from({ length: n }, (_, i) => ({
    _type: 'conversation', _schema_version: '1.0.0', _event_at: '2026-05-06T07:08:09Z', _vendor_ids: { run, i: String(i) },
    _product_id: demo.productId, _project_ids: [demo.projectId], _nature: 'evidence',
    data: { messages: [{ author: 'Ada', text: `message ${i} of ${run}` }] }, ...extra,
  }));
}

export async function submit(url: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/v1/ingest`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers }, body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Waits until every batch is COMPLETE or FAILED; returns their statuses. */
export async function settle(pool: pg.Pool, batchIds: string[], timeoutMs = 120_000): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM batches WHERE id = ANY($1) GROUP BY status', [batchIds],
    );
    const counts = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    if ((counts.COMPLETE ?? 0) + (counts.FAILED ?? 0) === batchIds.length || Date.now() > deadline) return counts;
    await new Promise((r) => setTimeout(r, 250));
  }
}
