import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { createSafeFetch } from '@loupe/safe-fetch';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { pino } from 'pino';
import { parseKeyring } from '../envelope';
import { insertConnection } from '../store';
import type { SyncDeps } from '../sync';
import { FakeIntercom } from '../testing';

/**
 * A database with pg-boss, a workspace with a product and a project, a fake Intercom, and what a sync needs; logs kept
 * to be searched. The engine's clock and the fake's share `clock.offsetMs`, so a test moves time for both.
 */
export async function intercomFixture(options: { conversations: number; partsEach?: number }) {
  const t: TestDatabase = await createTestDatabase();
  const boss: Boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  const ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
  const product = (await createProduct(t.db, ws, { name: 'App' })).id;
  const project = (await createProject(t.db, ws, product, { name: 'Support' })).id;
  const accessToken = `ic-token-${randomBytes(12).toString('hex')}`;
  const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
  const fake = new FakeIntercom({ accessToken, now: () => clock.now() });
  fake.seed(options.conversations, options.partsEach ?? 3);
  await fake.start();
  const logs: string[] = [];
  const log = pino({ level: 'debug' }, new Writable({ write(chunk, _e, done) { logs.push(String(chunk)); done(); } }));
  const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);
  const waits: number[] = [];
  const deps: SyncDeps = {
    pool: t.pool, boss, clock, log, keyring, fetch: createSafeFetch({ allowLoopback: true }),
    sleep: async (ms) => {
      waits.push(ms);
      fake.virtualNowMs += ms;
    },
  };
  const connect = async (settings: Record<string, unknown> = { start_date: '2025-12-01' }) => insertConnection(t.pool, keyring, ws, {
    kind: 'intercom', productId: product, projectId: project, baseUrl: fake.url, settings, credentials: { access_token: accessToken }, syncIntervalSeconds: 900,
  }, new Date());
  return {
    t, boss, ws, product, project, fake, accessToken, logs, keyring, waits, deps, connect, clock,
    async close() {
      await fake.stop();
      await boss.stop({ graceful: false, close: true });
      await t.close();
    },
  };
}
