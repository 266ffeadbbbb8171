import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createBoss, ensureQueues, QUEUES, type Boss } from '@loupe/jobs';
import { createSafeFetch } from '@loupe/safe-fetch';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { pino } from 'pino';
import { expect } from 'vitest';
import { parseKeyring } from '../envelope';
import { connectionView, findConnection, insertConnection, type ConnectionRow } from '../store';
import { syncConnection, type SyncDeps } from '../sync';
import type { FakeRawAnswer } from '../testing/fake-vendor-server';

/** What the sync fixtures need of a vendor's fake. */
interface SyncFake {
  url: string;
  virtualNowMs: number;
  readonly requests: unknown[];
  start(): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * What every connector's sync test stands on: a database with pg-boss, a workspace with a product and a project, the
 * vendor's fake (seeded by the caller, started here), and what a sync needs, its sleeps moving the fake's virtual time;
 * logs kept to be searched. `insert` adds a connection of `kind` to the fake with these settings and credentials.
 */
export async function syncFixture<F extends SyncFake>(options: { fake: F; project?: string; clock?: SyncDeps['clock'] }) {
  const t: TestDatabase = await createTestDatabase();
  const boss: Boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  const ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
  const product = (await createProduct(t.db, ws, { name: 'App' })).id;
  const project = (await createProject(t.db, ws, product, { name: options.project ?? 'Support' })).id;
  const fake = options.fake;
  await fake.start();
  const logs: string[] = [];
  const log = pino({ level: 'debug' }, new Writable({ write(chunk, _e, done) { logs.push(String(chunk)); done(); } }));
  const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);
  const waits: number[] = [];
  const deps: SyncDeps = {
    pool: t.pool, boss, clock: options.clock ?? { now: () => Date.now() }, log, keyring, fetch: createSafeFetch({ allowLoopback: true }),
    sleep: async (ms) => {
      waits.push(ms);
      fake.virtualNowMs += ms;
    },
  };
  const insert = async (kind: string, settings: Record<string, unknown>, credentials: Record<string, unknown>) => insertConnection(t.pool, keyring, ws, {
    kind, productId: product, projectId: project, baseUrl: fake.url, settings, credentials, syncIntervalSeconds: 900,
  }, new Date());
  return {
    t, boss, ws, product, project, fake, logs, keyring, waits, deps, insert,
    async close() {
      await fake.stop();
      await boss.stop({ graceful: false, close: true });
      await t.close();
    },
  };
}

type Fixture = Pick<Awaited<ReturnType<typeof syncFixture>>, 't' | 'ws' | 'deps'> & { fake: { readonly requests: unknown[] } };

/**
 * The sync of a connection whose credentials the vendor refuses: failing with `message` (the connection's view too,
 * with `view` besides), no sync scheduled any more, and a sync asked meanwhile skipped without asking the vendor.
 */
export async function expectRefusedCredentials(f: Fixture, connectionId: string, message: string, view: Record<string, unknown> = {}): Promise<void> {
  const outcome = await syncConnection(f.deps, connectionId);
  expect(outcome).toEqual({ status: 'failing', message });
  expect(connectionView((await findConnection(f.t.pool, f.ws, connectionId))!)).toMatchObject({ status: 'failing', last_error: message, ...view });
  const { rows: queued } = await f.t.pool.query("SELECT 1 FROM pgboss.job WHERE name = $1 AND data->>'connectionId' = $2 AND state = 'created'", [QUEUES.syncConnection, connectionId]);
  expect(queued).toHaveLength(0);
  const requests = f.fake.requests.length;
  expect(await syncConnection(f.deps, connectionId)).toEqual({ status: 'skipped', reason: 'not active' });
  expect(f.fake.requests.length).toBe(requests);
}

/**
 * One broken or hostile listing page (served raw by the fake): the sync fails with `page.error`, which is the
 * connection's last error, nothing of it stored, the cursor kept (as in `before`), and the next sync still scheduled.
 */
export async function expectRawPageRefused(
  f: Fixture & { fake: { serveRaw(...answers: FakeRawAnswer[]): void } }, connectionId: string, before: ConnectionRow, page: FakeRawAnswer & { error: RegExp },
): Promise<void> {
  await f.t.pool.query("DELETE FROM pgboss.job WHERE name = $1 AND data->>'connectionId' = $2", [QUEUES.syncConnection, connectionId]);
  f.fake.serveRaw(page);
  const outcome = await syncConnection(f.deps, connectionId);
  expect(outcome).toMatchObject({ status: 'failed', message: expect.stringMatching(page.error) });
  const after = (await findConnection(f.t.pool, f.ws, connectionId))!;
  expect(after).toMatchObject({ status: 'active', cursor: before.cursor, records_count: before.records_count, last_error: expect.stringMatching(page.error) });
  const { rows: queued } = await f.t.pool.query("SELECT data->>'reason' AS reason FROM pgboss.job WHERE name = $1 AND data->>'connectionId' = $2 AND state = 'created'", [QUEUES.syncConnection, connectionId]);
  expect(queued).toEqual([{ reason: 'schedule' }]);
}

/**
 * A sync through `count` 429s, each asking (Retry-After) for `seconds`: synced (with `outcome` besides), each wait as
 * long as asked, no retry sent early, and the 429s all answered.
 */
export async function expectRetryAfterWaited(
  f: Omit<Fixture, 'fake'> & { waits: number[]; fake: { rateLimit(count: number, seconds: number): void; earlyRetries: number; readonly requests: { status: number }[] } },
  connectionId: string, count: number, seconds: number, outcome: Record<string, unknown> = {},
): Promise<void> {
  const waits = Array.from({ length: count }, () => seconds * 1000);
  f.fake.rateLimit(count, seconds);
  const before = f.waits.length;
  expect(await syncConnection(f.deps, connectionId)).toMatchObject({ status: 'synced', ...outcome, waits });
  expect(f.waits.slice(before)).toEqual(waits);
  expect(f.fake.earlyRetries).toBe(0);
  expect(f.fake.requests.filter((r) => r.status === 429)).toHaveLength(count);
}
