import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey, revokeApiKey } from '@loupe/api-keys';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { appShell, createLogger, listen, systemClock, type Clock, type IdempotencyStore, type RateLimiter } from '@loupe/http';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { createIngestApp } from '../app';

export const unlimited: RateLimiter = { take: async () => ({ allowed: true, limit: 1e9, remaining: 1e9, retryAfterSeconds: 1 }) };

export interface Tenant {
  workspaceId: string;
  productId: string;
  projectId: string;
  otherProjectId: string;
  writeKey: string;
  readKey: string;
}

async function tenant(t: TestDatabase, name: string): Promise<Tenant> {
  const ws = await createWorkspace(t.db, { name });
  const product = await createProduct(t.db, ws.id, { name: 'P' });
  const project = await createProject(t.db, ws.id, product.id, { name: 'J' });
  const other = await createProject(t.db, ws.id, product.id, { name: 'K' });
  const write = await createApiKey(t.db, { workspaceId: ws.id, name: 'w', permissions: ['api:write'], servicePrefix: 'loupe_' });
  const read = await createApiKey(t.db, { workspaceId: ws.id, name: 'r', permissions: ['api:read'], servicePrefix: 'loupe_' });
  return { workspaceId: ws.id, productId: product.id, projectId: project.id, otherProjectId: other.id, writeKey: write.key, readKey: read.key };
}

export interface Harness {
  t: TestDatabase;
  boss: Boss;
  a: Tenant;
  b: Tenant;
  revokedKey: string;
  mcpOnlyKey: string;
  /** Where the apps store attachment files (a temporary directory). */
  storage: Storage;
  /** Starts another instance of the API on the same database. */
  startApp(options?: { rateLimiter?: RateLimiter; boss?: Boss; clock?: Clock; idempotency?: IdempotencyStore; perIp?: RateLimiter; inboundMailDomain?: string }): Promise<string>;
  base: string;
  close(): Promise<void>;
}

export async function startHarness(options: { rateLimiter?: RateLimiter } = { rateLimiter: unlimited }): Promise<Harness> {
  const t = await createTestDatabase();
  const boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  const a = await tenant(t, 'A');
  const b = await tenant(t, 'B');
  const revoked = await createApiKey(t.db, { workspaceId: a.workspaceId, name: 'x', permissions: ['api:write'], servicePrefix: 'loupe_' });
  await revokeApiKey(t.db, a.workspaceId, revoked.apiKey.id);
  const mcp = await createApiKey(t.db, {
    workspaceId: a.workspaceId, name: 'm', permissions: ['mcp:read'], defaultProductId: a.productId, servicePrefix: 'loupe_',
  });
  const storageDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-ingest-'));
  const storage = createLocalStorage(storageDir);
  const closers: (() => Promise<void>)[] = [() => rm(storageDir, { recursive: true, force: true })];
  const startApp = async (o: { rateLimiter?: RateLimiter; boss?: Boss; clock?: Clock; idempotency?: IdempotencyStore; perIp?: RateLimiter; inboundMailDomain?: string } = {}) => {
    let url = '';
    const limiter = 'rateLimiter' in o ? o.rateLimiter : options.rateLimiter;
    const app = appShell(createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), (a) => a.use(createIngestApp({
      pool: t.pool, boss: o.boss ?? boss, clock: o.clock ?? systemClock, servicePrefix: 'loupe_', baseUrl: () => url, storage,
      // As FETCH_ALLOW_LOOPBACK in tests: connections may name a fake vendor on 127.0.0.1.
      connections: { key: undefined, allowLoopback: true },
      ...(limiter ? { rateLimiter: limiter } : {}),
      ...(o.idempotency ? { idempotency: o.idempotency } : {}),
      ...(o.inboundMailDomain ? { inboundMailDomain: o.inboundMailDomain } : {}),
    })), o.perIp ? { perIp: o.perIp } : {});
    const l = await listen(app, 0, '127.0.0.1');
    url = `http://127.0.0.1:${l.port}`;
    closers.push(() => l.close(100));
    return url;
  };
  const base = await startApp();
  return {
    t, boss, a, b, revokedKey: revoked.key, mcpOnlyKey: mcp.key, storage, startApp, base,
    async close() {
      await Promise.all(closers.map((c) => c()));
      await boss.stop({ graceful: false, close: true });
      await t.close();
    },
  };
}

let seq = 0;
/** A valid record for `tenant`, with `overrides` merged over it. */
export function rec(tenant: Tenant, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  seq++;
  return {
    _type: 'email',
    _schema_version: '1.0.0',
    _event_at: '2026-03-04T05:06:07Z',
    _vendor_ids: { crm: `msg-${process.pid}-${Date.now()}-${seq}` },
    _product_id: tenant.productId,
    _project_ids: [tenant.projectId],
    _nature: 'evidence',
    data: { subject: 'Hello', body: 'We need CSV export' },
    ...overrides,
  };
}

export async function post(base: string, key: string | undefined, body: unknown, options: { headers?: Record<string, string>; query?: string; raw?: string | Buffer; contentType?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json', ...options.headers };
  if (key) headers['x-api-key'] = key;
  const res = await fetch(`${base}/api/v1/ingest${options.query ?? ''}`, {
    // A Buffer is sent as a plain Uint8Array view: the DOM typing of fetch (in the program with the browser tests) wants one.
    method: 'POST', headers, body: options.raw === undefined ? JSON.stringify(body) : typeof options.raw === 'string' ? options.raw : new Uint8Array(options.raw),
  });
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { raw: text };
  }
  return { status: res.status, body: json as Record<string, any>, headers: res.headers, text };
}

export async function get(base: string, key: string | undefined, path: string) {
  const res = await fetch(`${base}${path}`, { headers: key ? { 'x-api-key': key } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

export async function del(base: string, key: string | undefined, path: string) {
  const res = await fetch(`${base}${path}`, { method: 'DELETE', headers: key ? { 'x-api-key': key } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

/** Turns a stored record into a source as the worker would (the row alone: these tests are about the API). */
export async function sourceOf(h: Harness, recordId: string): Promise<string> {
  const id = `src_${recordId.slice(4)}`;
  await h.t.pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, record_id, type, nature, title, occurred_at, status)
     SELECT $2, workspace_id, product_id, project_ids, id, type, nature, 'Hello', event_at, 'ready' FROM records WHERE id = $1`,
    [recordId, id],
  );
  return id;
}

/** The ids of a batch's records, in order. */
export async function recordsOf(h: Harness, batchId: string): Promise<string[]> {
  const { rows } = await h.t.pool.query<{ id: string }>('SELECT id FROM records WHERE batch_id = $1 ORDER BY position', [batchId]);
  return rows.map((r) => r.id);
}

/** How many batches a workspace has. */
export async function batchesOf(h: Harness, workspaceId: string): Promise<number> {
  return (await h.t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM batches WHERE workspace_id = $1', [workspaceId])).rows[0]!.n;
}
