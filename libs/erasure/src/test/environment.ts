import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { afterAll, beforeAll } from 'vitest';

export interface ErasureEnvironment {
  t: TestDatabase;
  boss: Boss;
  dir: string;
  storage: Storage;
}

/**
 * What an erasure test file runs against, made before its tests and removed after them: a test
 * database, a started pg-boss with its queues, and a storage directory named from `prefix`.
 */
export function useErasureEnvironment(prefix: string, take: (env: ErasureEnvironment) => void): void {
  let env: ErasureEnvironment | undefined;
  beforeAll(async () => {
    const t = await createTestDatabase();
    const boss = createBoss({ connectionString: t.url, supervise: false });
    boss.on('error', () => {});
    await boss.start();
    await ensureQueues(boss);
    const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    env = { t, boss, dir, storage: createLocalStorage(dir) };
    take(env);
  });
  afterAll(async () => {
    if (!env) return;
    await env.boss.stop({ graceful: false, close: true });
    await env.t.close();
    await rm(env.dir, { recursive: true, force: true });
  });
}
