import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { QUEUES, type Boss } from '@loupe/jobs';
import { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchRow, createWorkspace, effects, land, startBoss, transcriptRecords, waitFor, waitForBatch } from './test/helpers';

const workerRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Running {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** `apps/worker/src/main.ts` as its own process, against the test database. */
function startWorkerProcess(databaseUrl: string, dataDir: string): Running {
  const output: string[] = [];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: workerRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn', WORKER_CONCURRENCY: '1', SHUTDOWN_TIMEOUT_MS: '5000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

describe('a worker killed mid-batch', () => {
  let t: TestDatabase;
  let boss: Boss;
  let supervisor: PgBoss;
  let dataDir: string;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-crash-'));
    // The production queue has a 30 s heartbeat; the shortest pg-boss allows keeps the test quick.
    boss = await startBoss(t.url, { batch: { heartbeatSeconds: 10, retryLimit: 3, retryDelay: 0, expireInSeconds: 300 } });
    // Any live instance's supervisor notices a job whose heartbeat stopped; this one checks every second.
    supervisor = new PgBoss({ connectionString: t.url, supervise: true, superviseIntervalSeconds: 1, monitorIntervalSeconds: 1, schedule: false });
    supervisor.on('error', () => {});
    await supervisor.start();
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await supervisor.stop({ graceful: false, close: true });
    await boss.stop({ graceful: false, close: true });
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is restarted and completes the batch with every record processed and charged exactly once', { timeout: 90_000 }, async () => {
    const total = 3000;
    const ws = await createWorkspace(t.pool, 500);
    const batchId = await land(t.pool, boss, ws, 'call', transcriptRecords(total));

    const first = startWorkerProcess(t.url, dataDir);
    children.push(first.child);
    await waitFor('the first chunk to commit', async () => (await batchRow(t.pool, batchId)).processed_count > 0, 30_000).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\nworker output:\n${first.output.join('')}`);
    });
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = await batchRow(t.pool, batchId);
    expect(atKill.status).toBe('PROCESSING');
    expect(atKill.processed_count).toBeGreaterThan(0);
    expect(atKill.processed_count).toBeLessThan(total);
    // What was committed is consistent: counters, sources and charges agree.
    const partial = await effects(t.pool, ws, batchId);
    expect(partial.sources).toBe(atKill.processed_count);
    expect(partial.charges).toBe(atKill.processed_count);

    const second = startWorkerProcess(t.url, dataDir);
    children.push(second.child);
    const done = await waitForBatch(t.pool, batchId, ['COMPLETE', 'FAILED'], 60_000).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\nworker output:\n${second.output.join('')}`);
    });
    expect(done).toMatchObject({ status: 'COMPLETE', processed_count: total, credits_charged: total, total_error_count: 0 });
    expect(await effects(t.pool, ws, batchId)).toEqual({
      records: total, processed: total, sources: total, charges: total, charged: total, duplicates: 0,
    });
    const { rows } = await t.pool.query<{ retry_count: number }>(
      `SELECT retry_count FROM pgboss.job WHERE name = $1 AND data->>'batchId' = $2`,
      [QUEUES.processBatch, batchId],
    );
    expect(rows.map((r) => r.retry_count)).toEqual([1]);

    // A graceful stop on SIGTERM.
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
