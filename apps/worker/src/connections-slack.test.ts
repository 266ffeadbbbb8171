import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findConnection, insertConnection, loadKeyring, type ConnectionRow } from '@loupe/connectors';
import { FAKE_SLACK_CUSTOMER_TEAM, FakeSlack } from '@loupe/connectors/testing';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type Worker } from './app';
import { FAST_OPTIONS, silentLog, startBoss, testConfig, waitFor } from './test/helpers';

const MESSAGES = Number(process.env.CONNECTOR_MESSAGES ?? 10_000);
const CHANNELS = ['C0FAKE001', 'C0FAKE002'];

describe('connection.sync in the worker: a Slack backfill killed and resumed, then only the changes', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dir: string;
  let fake: FakeSlack;
  const workers: Worker[] = [];
  beforeAll(async () => {
    t = await createTestDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-slack-'));
    boss = await startBoss(t.url);
    fake = new FakeSlack({ token: 'xoxb-worker-token-1' });
    // Two channels; every tenth message a thread with two replies: 9,000 messages and 1,000 conversations.
    fake.seed(MESSAGES, { channels: CHANNELS.length, threadEvery: 10, repliesEach: 2 });
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

  it(`backfills ${MESSAGES} Slack messages and threads into records and sources, each once, across a worker stopped mid-backfill`, async () => {
    const ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
    const product = (await createProduct(t.db, ws, { name: 'App' })).id;
    const project = (await createProject(t.db, ws, product, { name: 'Support' })).id;
    const keyring = await loadKeyring(t.pool, undefined);
    const conn = await insertConnection(t.pool, keyring, ws, {
      kind: 'slack', productId: product, projectId: project, baseUrl: fake.url, settings: { channel_ids: CHANNELS, start_date: '2025-12-01' },
      credentials: { token: 'xoxb-worker-token-1' }, syncIntervalSeconds: 900,
    }, new Date());

    const first = await start(100);
    let stopped: Promise<void> | undefined;
    // Stopped while it reads the replies of threads in the first channel's history: some pages stored, the rest not.
    let replies = 0;
    fake.onRequest = (method) => {
      if (method === 'conversations.replies' && ++replies === Math.ceil(MESSAGES / 40)) stopped = first.stop();
    };
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    await waitFor('the first worker to stop mid-backfill', async () => stopped !== undefined, 120_000);
    await stopped;
    fake.onRequest = undefined;
    const partial = await connection(ws, conn.id);
    expect(partial.records_count).toBeGreaterThan(0);
    expect(partial.records_count).toBeLessThan(MESSAGES);

    await start(5_000);
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    const done = await waitFor('the backfill to finish', async () => {
      const c = await connection(ws, conn.id);
      return c.last_success_at && c;
    }, 600_000);
    expect(done!.records_count).toBe(MESSAGES);
    const { rows: [counts] } = await t.pool.query<{ records: number; distinct_ids: number; threads: number }>(
      `SELECT count(*)::int AS records, count(DISTINCT r.vendor_ids->>'slack')::int AS distinct_ids, count(*) FILTER (WHERE r.type = 'conversation')::int AS threads
         FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1`,
      [conn.id],
    );
    expect(counts).toEqual({ records: MESSAGES, distinct_ids: MESSAGES, threads: MESSAGES / 10 });
    await waitFor('every record to become a source', async () => {
      const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sources WHERE workspace_id = $1', [ws]);
      return rows[0]!.n === MESSAGES;
    }, 600_000);

    // The second run brings a new reply in an old thread and a new message, nothing else.
    const later = Date.parse('2026-12-01T00:00:00Z');
    const oldThread = fake.channels.get(CHANNELS[1]!)!.messages[4]!; // message 10: a thread
    fake.addReply(CHANNELS[1]!, oldThread.ts, { user: 'U0CUSTOM0', user_team: FAKE_SLACK_CUSTOMER_TEAM, text: 'Any news?' }, later);
    fake.addMessage(CHANNELS[0]!, { user: 'U0CUSTOM1', user_team: FAKE_SLACK_CUSTOMER_TEAM, text: 'The export still fails' }, later + 1000);
    const before = fake.requests.length;
    await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
    const after = await waitFor('the incremental sync', async () => {
      const c = await connection(ws, conn.id);
      return c.records_count === MESSAGES + 2 && c.last_success_at! > done!.last_success_at! && c;
    }, 120_000);
    expect(after).toMatchObject({ status: 'active', duplicates_count: done!.duplicates_count });
    expect(fake.requests.slice(before).filter((r) => r.method === 'conversations.replies').map((r) => r.query.get('ts'))).toEqual([oldThread.ts]);
    const { rows: scheduled } = await t.pool.query("SELECT start_after > now() + interval '10 minutes' AS later FROM pgboss.job WHERE name = $1 AND state = 'created' AND data->>'reason' = 'schedule'", [QUEUES.syncConnection]);
    expect(scheduled).toEqual([{ later: true }]);
  }, 900_000);
});
