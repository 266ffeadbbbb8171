import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findConnection, insertConnection, loadKeyring, type ConnectionRow } from '@loupe/connectors';
import { FakeGong } from '@loupe/connectors/testing';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type Worker } from './app';
import { FAST_OPTIONS, silentLog, startBoss, testConfig, waitFor } from './test/helpers';

const CALLS = Number(process.env.CONNECTOR_CALLS ?? 10_000);
const DAY = 86_400_000;

describe('connection.sync in the worker: a Gong backfill killed and resumed, then only the new calls', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dir: string;
  let fake: FakeGong;
  const workers: Worker[] = [];
  // The worker's clock: moved a day on before the second run, so calls made since the first are old enough to read.
  let offset = 0;
  beforeAll(async () => {
    t = await createTestDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-gong-'));
    boss = await startBoss(t.url);
    fake = new FakeGong({ accessKey: 'gong-worker-key', accessKeySecret: 'gong-worker-secret' });
    fake.seed(CALLS);
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
      pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() + offset }, log: silentLog,
      config: testConfig(dir, { SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs) }), options: FAST_OPTIONS, sleep: async () => {},
    });
    workers.push(worker);
    await worker.start();
    return worker;
  };
  const connection = async (ws: string, id: string) => (await findConnection(t.pool, ws, id)) as ConnectionRow;

  it(`backfills ${CALLS} Gong calls into call transcripts and sources, each once, across a worker stopped mid-backfill`, async () => {
    const ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
    const product = (await createProduct(t.db, ws, { name: 'App' })).id;
    const project = (await createProject(t.db, ws, product, { name: 'Calls' })).id;
    const keyring = await loadKeyring(t.pool, undefined);
    const conn = await insertConnection(t.pool, keyring, ws, {
      kind: 'gong', productId: product, projectId: project, baseUrl: fake.url, settings: { start_date: '2025-12-01' },
      credentials: { access_key: 'gong-worker-key', access_key_secret: 'gong-worker-secret' }, syncIntervalSeconds: 900,
    }, new Date());

    const first = await start(100);
    let stopped: Promise<void> | undefined;
    // Stopped while it reads the transcripts of a page a third of the way in: the pages before it are stored, the rest not.
    let pages = 0;
    fake.onRequest = (p) => {
      if (p === '/v2/calls/extensive') pages++;
      if (p === '/v2/calls/transcript' && pages === Math.ceil(CALLS / 300) && !stopped) stopped = first.stop();
    };
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    await waitFor('the first worker to stop mid-backfill', async () => stopped !== undefined, 120_000);
    await stopped;
    fake.onRequest = undefined;
    const partial = await connection(ws, conn.id);
    expect(partial.records_count).toBeGreaterThan(0);
    expect(partial.records_count).toBeLessThan(CALLS);

    await start(5_000);
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    const done = await waitFor('the backfill to finish', async () => {
      const c = await connection(ws, conn.id);
      return c.last_success_at && c;
    }, 600_000);
    expect(done!.records_count).toBe(CALLS);
    const { rows: [counts] } = await t.pool.query<{ records: number; distinct_ids: number; transcripts: number }>(
      `SELECT count(*)::int AS records, count(DISTINCT r.vendor_ids->>'gong')::int AS distinct_ids,
              count(*) FILTER (WHERE r.type = 'call_transcription' AND json_array_length(r.data->'transcript') = 2)::int AS transcripts
         FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1`,
      [conn.id],
    );
    expect(counts).toEqual({ records: CALLS, distinct_ids: CALLS, transcripts: CALLS });
    await waitFor('every record to become a source', async () => {
      const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sources WHERE workspace_id = $1', [ws]);
      return rows[0]!.n === CALLS;
    }, 600_000);

    // The second run, a day later, brings the two calls made since the first, nothing else.
    const windowEnd = Date.parse((done!.cursor as { from: string }).from);
    fake.addCall(windowEnd + 60_000);
    fake.addCall(windowEnd + 120_000);
    offset = DAY;
    const before = fake.requests.length;
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    const after = await waitFor('the incremental sync', async () => {
      const c = await connection(ws, conn.id);
      return c.records_count === CALLS + 2 && c.last_success_at! > done!.last_success_at! && c;
    }, 120_000);
    expect(after).toMatchObject({ status: 'active', duplicates_count: done!.duplicates_count });
    const asked = fake.requests.slice(before).filter((r) => r.path === '/v2/calls/extensive');
    expect(asked.map((r) => r.body!.filter.fromDateTime)).toEqual([new Date(windowEnd).toISOString()]);
    const { rows: scheduled } = await t.pool.query("SELECT start_after > now() + interval '10 minutes' AS later FROM pgboss.job WHERE name = $1 AND state = 'created' AND data->>'reason' = 'schedule'", [QUEUES.syncConnection]);
    expect(scheduled).toEqual([{ later: true }]);
  }, 900_000);
});
