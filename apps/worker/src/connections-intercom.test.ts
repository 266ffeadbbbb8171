import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findConnection, insertConnection, INTERCOM_SETTLE_SECONDS, loadKeyring, type ConnectionRow } from '@loupe/connectors';
import { FakeIntercom } from '@loupe/connectors/testing';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type Worker } from './app';
import { FAST_OPTIONS, silentLog, startBoss, testConfig, waitFor } from './test/helpers';

const CONVERSATIONS = Number(process.env.CONNECTOR_CONVERSATIONS ?? 10_000);
const TOKEN = 'ic-worker-token-5e1d';

describe('connection.sync in the worker: an Intercom backfill killed and resumed, then only the changes', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dir: string;
  let fake: FakeIntercom;
  const workers: Worker[] = [];
  // The worker's clock and the fake's: moved on by the test so that a change made now is in the next sync's window.
  const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
  beforeAll(async () => {
    t = await createTestDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-intercom-'));
    boss = await startBoss(t.url);
    fake = new FakeIntercom({ accessToken: TOKEN, now: () => clock.now() });
    fake.seed(CONVERSATIONS, 2);
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
      pool: t.pool, db: t.db, boss, clock, log: silentLog,
      config: testConfig(dir, { SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs) }), options: FAST_OPTIONS, sleep: async () => {},
    });
    workers.push(worker);
    await worker.start();
    return worker;
  };
  const connection = async (ws: string, id: string) => (await findConnection(t.pool, ws, id)) as ConnectionRow;

  it(`backfills ${CONVERSATIONS} Intercom conversations into records and sources, each once, across a worker stopped mid-backfill`, async () => {
    const ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
    const product = (await createProduct(t.db, ws, { name: 'App' })).id;
    const project = (await createProject(t.db, ws, product, { name: 'Support' })).id;
    const keyring = await loadKeyring(t.pool, undefined);
    const conn = await insertConnection(t.pool, keyring, ws, {
      kind: 'intercom', productId: product, projectId: project, baseUrl: fake.url, settings: { start_date: '2025-12-01', page_size: 150 },
      credentials: { access_token: TOKEN }, syncIntervalSeconds: 900,
    }, new Date());

    const first = await start(100);
    let stopped: Promise<void> | undefined;
    // Stopped while it reads the conversations of the ninth search page: eight pages are stored, the ninth is not.
    let read = 0;
    fake.onRequest = (p, _query, method) => {
      if (method === 'GET' && p.startsWith('/conversations/') && ++read === Math.min(1280, Math.floor(CONVERSATIONS / 2))) stopped = first.stop();
    };
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    await waitFor('the first worker to stop mid-backfill', async () => stopped !== undefined, 120_000);
    await stopped;
    fake.onRequest = undefined;
    const partial = await connection(ws, conn.id);
    expect(partial.records_count).toBeGreaterThan(0);
    expect(partial.records_count).toBeLessThan(CONVERSATIONS);
    expect(partial.cursor).toMatchObject({ starting_after: expect.any(String) });

    await start(5_000);
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    const done = await waitFor('the backfill to finish', async () => {
      const c = await connection(ws, conn.id);
      return c.last_success_at && c;
    }, 600_000);
    expect(done!.records_count).toBe(CONVERSATIONS);
    expect(done!.companies_count).toBe(10);
    const { rows: [counts] } = await t.pool.query<{ records: number; distinct_ids: number }>(
      `SELECT count(*)::int AS records, count(DISTINCT r.vendor_ids->>'intercom')::int AS distinct_ids FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1`,
      [conn.id],
    );
    expect(counts).toEqual({ records: CONVERSATIONS, distinct_ids: CONVERSATIONS });
    await waitFor('every record to become a source', async () => {
      const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sources WHERE workspace_id = $1', [ws]);
      return rows[0]!.n === CONVERSATIONS;
    }, 600_000);

    // The second run reads the window since the first and brings the two conversations with a new message, nothing else.
    clock.offsetMs += 60_000;
    fake.reply('5', '<p>The export still fails</p>');
    fake.reply('6', '<p>Any news?</p>');
    fake.close('7');
    clock.offsetMs += (INTERCOM_SETTLE_SECONDS + 60) * 1000;
    const searchesBefore = fake.requests.filter((r) => r.path === '/conversations/search').length;
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    const after = await waitFor('the incremental sync', async () => {
      const c = await connection(ws, conn.id);
      return c.last_success_at! > done!.last_success_at! && c;
    }, 120_000);
    // 5 and 6 are new versions; 7, closed with nothing new to say, is read again as a duplicate.
    expect(after).toMatchObject({ status: 'active', records_count: CONVERSATIONS + 2, duplicates_count: done!.duplicates_count + 1 });
    expect(fake.requests.filter((r) => r.path === '/conversations/search').length - searchesBefore).toBe(1);
    const { rows: scheduled } = await t.pool.query(
      "SELECT start_after > now() + interval '10 minutes' AS later FROM pgboss.job WHERE name = $1 AND state = 'created' AND data->>'reason' = 'schedule'", [QUEUES.syncConnection]);
    expect(scheduled).toEqual([{ later: true }]);
  }, 900_000);
});
