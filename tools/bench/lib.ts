import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '@loupe/api-keys';
import { loadConfig } from '@loupe/config';
import { createLogger } from '@loupe/http';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { startService, type RunningService } from '../src/service';

export interface BenchTenant {
  workspaceId: string;
  productId: string;
  projectId: string;
  keys: string[];
}

/** The real service on a fresh embedded PostgreSQL (or DATABASE_URL), on a free port. */
export async function startBenchService(env: Record<string, string> = {}): Promise<RunningService> {
  const dataDir = process.env.DATABASE_URL ? '.data' : await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-'));
  const config = loadConfig({ ...process.env, PORT: '0', DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(55000 + Math.floor(Math.random() * 5000)), LOG_LEVEL: 'warn', DB_POOL_SIZE: '20', ...env });
  return startService({ config, log: createLogger('warn') });
}

export async function benchTenant(service: RunningService, keyCount: number): Promise<BenchTenant> {
  const { db } = service.database;
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

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

export const round = (n: number, d = 0) => Math.round(n * 10 ** d) / 10 ** d;
