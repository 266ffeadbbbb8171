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
import { FakeSlack } from '../testing';

export const SLACK_CHANNEL = 'C0FAKE001';

/** A database with pg-boss, a workspace with a product and a project, a fake Slack, and what a sync needs; logs kept to be searched. */
export async function slackFixture(messages: number) {
  const t: TestDatabase = await createTestDatabase();
  const boss: Boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  const ws = (await createWorkspace(t.db, { name: 'Acme' })).id;
  const product = (await createProduct(t.db, ws, { name: 'App' })).id;
  const project = (await createProject(t.db, ws, product, { name: 'Support' })).id;
  const token = `xoxb-${randomBytes(12).toString('hex')}`;
  const fake = new FakeSlack({ token });
  fake.seed(messages, { threadEvery: 10, repliesEach: 2 });
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
  const connect = async (settings: Record<string, unknown> = { channel_ids: [SLACK_CHANNEL], start_date: '2025-12-01', page_size: 40 }) => insertConnection(t.pool, keyring, ws, {
    kind: 'slack', productId: product, projectId: project, baseUrl: fake.url, settings, credentials: { token }, syncIntervalSeconds: 900,
  }, new Date());
  return {
    t, boss, ws, fake, token, logs, keyring, waits, deps, connect, project,
    async close() {
      await fake.stop();
      await boss.stop({ graceful: false, close: true });
      await t.close();
    },
  };
}

export type SlackFixture = Awaited<ReturnType<typeof slackFixture>>;
