import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findConnection, insertConnection, loadKeyring, type ConnectionRow } from '@loupe/connectors';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type Worker } from '../app';
import { FAST_OPTIONS, silentLog, startBoss, testConfig, waitFor } from './helpers';

/** The worker's clock, shared with a fake that needs it: the test moves it on (`offsetMs`) before the incremental sync. */
export interface BackfillClock { offsetMs: number; now(): number }

/** What the suite needs of a vendor's fake (FakeZendesk, FakeIntercom, FakeSlack, FakeGong). */
interface BackfillFake {
  url: string;
  start(): Promise<unknown>;
  stop(): Promise<void>;
  onRequest: ((...args: never[]) => void) | undefined;
}

/** One vendor's case of "a backfill across a worker stopped mid-backfill, then only the changes". */
export interface BackfillCase<F extends BackfillFake> {
  /** The connection's kind, also the key of its records' `vendor_ids`. */
  kind: 'zendesk' | 'intercom' | 'slack' | 'gong';
  describe: string;
  it: string;
  /** The objects seeded: the records the backfill must store, each once. */
  total: number;
  tmpPrefix: string;
  project?: string;
  /** A new fake, seeded. */
  fake(clock: BackfillClock): F;
  settings: Record<string, unknown>;
  credentials: Record<string, unknown>;
  /** Sets the fake's `onRequest` to call `stop` (idempotent) at the point where the first worker is to stop. */
  stopWhen(fake: F, stop: () => void): void;
  /** Checks of the partial connection besides its count. */
  partial?(partial: ConnectionRow): void;
  /** Checks of the finished backfill besides its count. */
  done?(done: ConnectionRow): void;
  /** Counts of the stored records besides `records` and `distinct_ids`: the SQL select expressions (on `r`) and what they must be. */
  extraCounts?: { select: string; expected: Record<string, number> };
  /** The changes after the backfill: returns when the incremental sync is over and what to check of it then. */
  change(ctx: { fake: F; clock: BackfillClock; done: ConnectionRow }): {
    settled(c: ConnectionRow): boolean;
    check(after: ConnectionRow): void;
  };
}

/** One describe: the vendor's backfill killed and resumed in the worker, stored each once, then the incremental sync. */
export function describeWorkerBackfill<F extends BackfillFake>(vendor: BackfillCase<F>): void {
  describe(vendor.describe, () => {
    let t: TestDatabase;
    let boss: Boss;
    let dir: string;
    let fake: F;
    const workers: Worker[] = [];
    const clock: BackfillClock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
    beforeAll(async () => {
      t = await createTestDatabase();
      dir = await mkdtemp(path.join(os.tmpdir(), vendor.tmpPrefix));
      boss = await startBoss(t.url);
      fake = vendor.fake(clock);
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
    const total = vendor.total;

    it(vendor.it, async () => {
      const ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
      const product = (await createProduct(t.db, ws, { name: 'App' })).id;
      const project = (await createProject(t.db, ws, product, { name: vendor.project ?? 'Support' })).id;
      // No CONNECTIONS_KEY: the development key kept in the database, as on the embedded setup.
      const keyring = await loadKeyring(t.pool, undefined);
      const conn = await insertConnection(t.pool, keyring, ws, {
        kind: vendor.kind, productId: product, projectId: project, baseUrl: fake.url, settings: vendor.settings,
        credentials: vendor.credentials, syncIntervalSeconds: 900,
      }, new Date());

      // The stop is armed before the worker starts: its start queues the connection's first scheduled sync, which
      // may read much of the backfill before start returns (it loads the word vectors meanwhile).
      const first = start(100);
      let stopped: Promise<void> | undefined;
      vendor.stopWhen(fake, () => {
        stopped ??= first.then((worker) => worker.stop());
      });
      await first;
      await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
      await waitFor('the first worker to stop mid-backfill', async () => stopped !== undefined, 120_000).catch(async (error: Error) => {
        // Say where the first sync stood (a stop armed after the worker started missed a sync that had run to its end): its jobs and the connection.
        const { rows: jobs } = await t.pool.query<{ state: string; output: unknown }>(
          "SELECT state, output FROM pgboss.job WHERE name = $1 AND data->>'connectionId' = $2", [QUEUES.syncConnection, conn.id]);
        const now = await connection(ws, conn.id);
        throw new Error(`${error.message}; sync jobs ${JSON.stringify(jobs)}; connection ${JSON.stringify({ status: now.status, records: now.records_count, last_error: now.last_error })}`);
      });
      await stopped;
      (fake as BackfillFake).onRequest = undefined;
      const partial = await connection(ws, conn.id);
      expect(partial.records_count).toBeGreaterThan(0);
      expect(partial.records_count).toBeLessThan(total);
      vendor.partial?.(partial);

      await start(5_000);
      await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
      const done = await waitFor('the backfill to finish', async () => {
        const c = await connection(ws, conn.id);
        return c.last_success_at && c;
      }, 600_000);
      expect(done!.records_count).toBe(total);
      vendor.done?.(done!);
      const extra = vendor.extraCounts ? `, ${vendor.extraCounts.select}` : '';
      const { rows: [counts] } = await t.pool.query<Record<string, number>>(
        `SELECT count(*)::int AS records, count(DISTINCT r.vendor_ids->>'${vendor.kind}')::int AS distinct_ids${extra}
           FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1`,
        [conn.id],
      );
      expect(counts).toEqual({ records: total, distinct_ids: total, ...vendor.extraCounts?.expected });
      await waitFor('every record to become a source', async () => {
        const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sources WHERE workspace_id = $1', [ws]);
        return rows[0]!.n === total;
      }, 600_000);

      // The stopped worker's job comes back too: a second sync may still run after the first finished. The changes
      // are made once no asked-for sync is left, against the connection as that left it.
      await waitFor('no sync left to run', async () => {
        const { rows } = await t.pool.query(
          "SELECT 1 FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active') AND data->>'connectionId' = $2 AND data->>'reason' <> 'schedule'",
          [QUEUES.syncConnection, conn.id],
        );
        return rows.length === 0;
      }, 120_000);
      const settledDone = await connection(ws, conn.id);
      expect(settledDone.records_count).toBe(total);
      const changed = vendor.change({ fake, clock, done: settledDone });
      await enqueue(boss, QUEUES.syncConnection, { workspaceId: ws, connectionId: conn.id, reason: 'now' });
      const after = await waitFor('the incremental sync', async () => {
        const c = await connection(ws, conn.id);
        return changed.settled(c) && c;
      }, 120_000);
      changed.check(after);
      const { rows: scheduled } = await t.pool.query(
        "SELECT start_after > now() + interval '10 minutes' AS later FROM pgboss.job WHERE name = $1 AND state = 'created' AND data->>'reason' = 'schedule'", [QUEUES.syncConnection]);
      expect(scheduled).toEqual([{ later: true }]);
    }, 900_000);
  });
}
