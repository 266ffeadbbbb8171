import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '@loupe/api-keys';
import { createPool, createPrismaClient, freePort, type Db, type Pool } from '@loupe/db';
import { QUEUES } from '@loupe/jobs';
import { pendingSemanticSources } from '@loupe/sources';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';

export interface BenchTenant {
  workspaceId: string;
  productId: string;
  projectId: string;
  keys: string[];
}

/** The service under test, running as its own process, and a connection to its database. */
export interface BenchTarget {
  url: string;
  databaseUrl: string;
  pool: Pool;
  db: Db;
  embedded: boolean;
  /** Process id of the service, and the embedded cluster's directory (undefined with DATABASE_URL). */
  pid: number | undefined;
  postgresDataDir: string | undefined;
  close(): Promise<void>;
}

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Starts `npm start`'s entry point as a separate process, as users run it: on a
 * fresh embedded PostgreSQL (or on DATABASE_URL's server when set), on free ports.
 */
export async function startBenchService(env: Record<string, string> = {}): Promise<BenchTarget> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-'));
  const port = await freePort();
  const pgPort = await freePort();
  // Node with tsx's loader (not the tsx CLI, which would add a second process in between).
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'tools/src/start.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), LOG_LEVEL: 'warn', PER_IP_LIMIT_PER_MINUTE: '100000000', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    // BENCH_VERBOSE=1: the service's log (warnings and errors) beside the bench's own output.
    if (process.env.BENCH_VERBOSE) process.stderr.write(d);
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${out}`);
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error('the service did not become ready in 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const databaseUrl = process.env.DATABASE_URL
    ?? `postgresql://postgres:${encodeURIComponent((await readFile(path.join(dataDir, 'postgres.password'), 'utf8')).trim())}@127.0.0.1:${pgPort}/loupe`;
  const pool = createPool(databaseUrl, 8);
  const db = createPrismaClient(pool);
  return {
    url,
    databaseUrl,
    pool,
    db,
    embedded: !process.env.DATABASE_URL,
    pid: child.pid,
    postgresDataDir: process.env.DATABASE_URL ? undefined : path.join(dataDir, 'postgres'),
    async close() {
      await db.$disconnect();
      await pool.end();
      await new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      });
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function benchTenant(service: BenchTarget, keyCount: number): Promise<BenchTenant> {
  const { db } = service;
  const ws = await createWorkspace(db, { name: `bench ${Date.now()}` });
  const product = await createProduct(db, ws.id, { name: 'Bench' });
  const project = await createProject(db, ws.id, product.id, { name: 'Bench' });
  const keys: string[] = [];
  for (let i = 0; i < keyCount; i++) {
    keys.push((await createApiKey(db, { workspaceId: ws.id, name: `bench ${i}`, permissions: ['api:write', 'api:read'], servicePrefix: 'loupe_' })).key);
  }
  return { workspaceId: ws.id, productId: product.id, projectId: project.id, keys };
}

/** `n` distinct records of about `bytes` bytes each (a conversation with a few turns). */
export function makeRecords(t: BenchTenant, n: number, bytes = 1024): Record<string, unknown>[] {
  const run = randomBytes(6).toString('hex');
  return Array.from({ length: n }, (_, i) => {
    const rec = {
      _type: 'conversation',
      _schema_version: '1.0.0',
      _event_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      _vendor_ids: { zendesk: `${run}-${i}` },
      _product_id: t.productId,
      _project_ids: [t.projectId],
      _nature: 'evidence',
      _participants: [{ id: 'cust-1', role: 'external', name: 'Ada' }, { id: 'agent-7', role: 'internal', name: 'Bo' }],
      _tags: ['bench'],
      data: { messages: [{ author: 'Ada', text: '' }, { author: 'Bo', text: 'Thanks, we are looking into it.' }] },
    };
    const pad = bytes - JSON.stringify(rec).length;
    rec.data.messages[0]!.text = 'The export to CSV takes minutes for large projects. '.repeat(Math.ceil(Math.max(pad, 0) / 52)).slice(0, Math.max(pad, 0));
    return rec;
  });
}

/**
 * The nearest-rank percentile of sorted samples: the smallest sample with at least p % of them at or
 * below it (p99 of 100 samples is the 99th, not the slowest: that is `max`).
 */
/**
 * Calls `call` every 20 ms, one at a time, until stopped; the stop resolves to the latencies in ms,
 * sorted. What a cheap request waits for while the machine is busy: a stall of the process or the database.
 */
export function sampleLatency(call: () => Promise<unknown>) {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      await call().catch(() => undefined);
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return latencies.sort((a, b) => a - b);
  };
}

/** sampleLatency of the service's /healthz (answered by the process alone, without the database). */
export const sampleHealth = (url: string) => sampleLatency(() => fetch(`${url}/healthz`).then((r) => r.arrayBuffer()));

/**
 * Waits until the worker has embedded every source of the workspace and is done with it: its embedding job,
 * which then learns the workspace's vocabulary for search when due (libs/sources/src/vocabulary.ts).
 */
export async function waitEmbedded(pool: Pool, workspaceId: string, timeoutMs = 30 * 60_000): Promise<void> {
  const started = performance.now();
  for (;;) {
    if ((await pendingSemanticSources(pool, workspaceId, 1)) === 0) {
      const { rowCount } = await pool.query(
        "SELECT 1 FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active') AND data->>'workspaceId' = $2", [QUEUES.embedSources, workspaceId],
      );
      if (!rowCount) return;
    }
    if (performance.now() - started > timeoutMs) throw new Error(`the sources were not embedded within ${timeoutMs / 60_000} minutes`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

export const round = (n: number, d = 0) => Math.round(n * 10 ** d) / 10 ** d;

/** One POST over a kept-alive connection of `agent`: its status and body, read whole. */
export function postOnce(url: URL, agent: http.Agent, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The statements our service sends PostgreSQL while `fn` runs (it answers how many calls it made),
 * counted in the server's own log (log_statement = all, turned on only for this) between two
 * markers, leaving out the worker's connections (pg-boss) and this bench's. Every statement counts:
 * a transaction's BEGIN and COMMIT too. Embedded PostgreSQL only. Answers the statements per call,
 * and those of the first `perCall` calls' worth, in order.
 */
export async function statementsOf(service: BenchTarget, fn: () => Promise<number>): Promise<{ perCall: number; statements: string[] }> {
  const { pool } = service;
  const log = path.join(service.postgresDataDir!, 'server.log');
  await pool.query("ALTER SYSTEM SET log_statement = 'all'");
  await pool.query('SELECT pg_reload_conf()');
  await sleep(1000);
  const from = (await readFile(log, 'utf8')).length;
  const marker = randomBytes(6).toString('hex');
  await pool.query(`SELECT 'start-${marker}'`);
  let calls: number;
  try {
    calls = await fn();
  } finally {
    await pool.query(`SELECT 'end-${marker}'`);
    await pool.query('ALTER SYSTEM RESET log_statement');
    await pool.query('SELECT pg_reload_conf()');
  }
  const text = (await readFile(log, 'utf8')).slice(from);
  const window = text.slice(text.lastIndexOf('\n', text.indexOf(`start-${marker}`)) + 1, text.indexOf(`end-${marker}`));
  // One entry per line that starts with the log prefix ("… [pid] LOG:  …"); continuation lines start with a tab.
  const entries = window.split(/\n(?!\t)/).map((e) => ({ pid: /\[(\d+)\]/.exec(e)?.[1], text: e }));
  const pgboss = new Set(entries.filter((e) => e.text.includes('pgboss')).map((e) => e.pid));
  const ownPid = entries[0]?.pid; // the start marker's
  const statements = entries
    .filter((e) => e.pid !== ownPid && !pgboss.has(e.pid) && / LOG: {2}(statement|execute [^:]*): /.test(e.text))
    .map((e) => e.text.replace(/^.*? LOG: {2}(statement|execute [^:]*): /s, '').replace(/\s+/g, ' ').trim());
  return { perCall: round(statements.length / Math.max(calls, 1), 2), statements: statements.slice(0, Math.round(statements.length / Math.max(calls, 1))) };
}
