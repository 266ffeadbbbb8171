import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findConnection, insertConnection, loadKeyring, type ConnectionRow } from '@loupe/connectors';
import { FakeZendesk } from '@loupe/connectors/testing';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type Worker } from './app';
import { FAST_OPTIONS, silentLog, startBoss, testConfig, waitFor } from './test/helpers';

const TICKETS = Number(process.env.CONNECTOR_TICKETS ?? 10_000);

describe('connection.sync in the worker: a Zendesk backfill killed and resumed, then only the changes', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dir: string;
  let fake: FakeZendesk;
  const workers: Worker[] = [];
  beforeAll(async () => {
    t = await createTestDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-connections-'));
    boss = await startBoss(t.url);
    fake = new FakeZendesk({ email: 'ops@acme.example', apiToken: 'zd-worker-token', pageSize: 1000 });
    fake.seed(TICKETS, 1);
    await fake.start();
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await fake.stop();
    await boss.stop({ graceful: false, close: true });
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  const start = async (shutdownTimeoutMs: number) => {
    const worker = createWorker({
      pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog,
      config: testConfig(dir, { SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs) }), options: FAST_OPTIONS, sleep: async () => {},
    });
    workers.push(worker);
    await worker.start();
    return worker;
  };
  const connection = async (ws: string, id: string) => (await findConnection(t.pool, ws, id)) as ConnectionRow;

  it(`backfills ${TICKETS} tickets into records and sources, each once, across a worker stopped mid-backfill`, async () => {
    const ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
    const product = (await createProduct(t.db, ws, { name: 'App' })).id;
    const project = (await createProject(t.db, ws, product, { name: 'Support' })).id;
    // No CONNECTIONS_KEY: the development key kept in the database, as on the embedded setup.
    const keyring = await loadKeyring(t.pool, undefined);
    const conn = await insertConnection(t.pool, keyring, ws, {
      kind: 'zendesk', productId: product, projectId: project, baseUrl: fake.url, settings: { start_date: '2025-12-01' },
      credentials: { email: 'ops@acme.example', api_token: 'zd-worker-token' }, syncIntervalSeconds: 900,
    }, new Date());

    const first = await start(100);
    let stopped: Promise<void> | undefined;
    // Stopped while it reads the comments of the second page: the first page is stored, the second is not.
    let comments = 0;
    fake.onRequest = (p) => {
      if (p.endsWith('comments.json') && ++comments === 1300) stopped = first.stop();
    };
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    await waitFor('the first worker to stop mid-backfill', async () => stopped !== undefined, 120_000);
    await stopped;
    fake.onRequest = undefined;
    const partial = await connection(ws, conn.id);
    expect(partial.records_count).toBeGreaterThan(0);
    expect(partial.records_count).toBeLessThan(TICKETS);

    await start(5_000);
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    const done = await waitFor('the backfill to finish', async () => {
      const c = await connection(ws, conn.id);
      return c.last_success_at && c;
    }, 600_000);
    expect(done!.records_count).toBe(TICKETS);
    const { rows: [counts] } = await t.pool.query<{ records: number; distinct_ids: number }>(
      `SELECT count(*)::int AS records, count(DISTINCT r.vendor_ids->>'zendesk')::int AS distinct_ids FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1`,
      [conn.id],
    );
    expect(counts).toEqual({ records: TICKETS, distinct_ids: TICKETS });
    await waitFor('every record to become a source', async () => {
      const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sources WHERE workspace_id = $1', [ws]);
      return rows[0]!.n === TICKETS;
    }, 600_000);

    // The second run reads from the saved cursor and brings the two tickets with a new comment, nothing else.
    const later = Date.parse('2026-12-01T00:00:00Z');
    fake.addComment(5, 'The export still fails', later);
    fake.addComment(6, 'Any news?', later + 1000);
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    const after = await waitFor('the incremental sync', async () => {
      const c = await connection(ws, conn.id);
      return c.records_count === TICKETS + 2 && c;
    }, 120_000);
    expect(after.status).toBe('active');
    const { rows: scheduled } = await t.pool.query("SELECT start_after > now() + interval '10 minutes' AS later FROM pgboss.job WHERE name = $1 AND state = 'created' AND data->>'reason' = 'schedule'", [QUEUES.syncConnection]);
    expect(scheduled).toEqual([{ later: true }]);
  }, 900_000);
});
