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
import { FakeZendesk } from '../testing';

/** A database with pg-boss, a workspace with a product and a project, a fake Zendesk, and what a sync needs; logs kept to be searched. */
export async function connectorFixture(options: { tickets: number; commentsEach?: number; pageSize?: number }) {
  const t: TestDatabase = await createTestDatabase();
  const boss: Boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  const ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
  const product = (await createProduct(t.db, ws, { name: 'App' })).id;
  const project = (await createProject(t.db, ws, product, { name: 'Support' })).id;
  const apiToken = `zd-token-${randomBytes(12).toString('hex')}`;
  const fake = new FakeZendesk({ email: 'admin@acme.example', apiToken, pageSize: options.pageSize ?? 1000 });
  fake.seed(options.tickets, options.commentsEach ?? 2);
  await fake.start();
  const logs: string[] = [];
  const log = pino({ level: 'debug' }, new Writable({ write(chunk, _e, done) { logs.push(String(chunk)); done(); } }));
  const keyring = parseKeyring(`k1:${randomBytes(32).toString('base64')}`);
  const waits: number[] = [];
  const deps: SyncDeps = {
    pool: t.pool, boss, clock: { now: () => Date.now() }, log, keyring, fetch: createSafeFetch({ allowLoopback: true }),
    sleep: async (ms) => {
      waits.push(ms);
      fake.virtualNowMs += ms;
    },
  };
  const connect = async (settings: Record<string, unknown> = { start_date: '2025-12-01' }) => insertConnection(t.pool, keyring, ws, {
    kind: 'zendesk', productId: product, projectId: project, baseUrl: fake.url, settings,
    credentials: { email: 'admin@acme.example', api_token: apiToken }, syncIntervalSeconds: 900,
  }, new Date());
  return {
    t, boss, ws, product, project, fake, apiToken, logs, keyring, waits, deps, connect,
    async close() {
      await fake.stop();
      await boss.stop({ graceful: false, close: true });
      await t.close();
    },
  };
}
